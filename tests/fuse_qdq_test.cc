// fuse_qdq: a QDQ conv (or MatMul with a constant weight) becomes one integer conv (dense) with the
// constants the kernel needs, and what it cannot run on integers stays float; the QDQ ResNet-18
// plans every conv of four-channel multiples as qconv2d_nchwc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/passes/passes.h"
#include "graph/pipeline.h"
#include "graph/shape_inference.h"
#include "graph/tasks.h"
#include "runtime/model/executor.h"
#include "runtime/model/timing.h"
#include "tests/graph_builders.h"

namespace tf::graph {
namespace {

using testing::add_constant;
using testing::node;

constexpr int64_t kChannels = 8, kOut = 4;

// DequantizeLinear(x) -> Conv(DequantizeLinear(w), bias) -> Relu -> QuantizeLinear, as the import
// normalizes a QDQ model: per-channel weight scales broadcast as [K, 1, 1, 1].
// About the typical output's magnitude over 60 steps: most outputs between the bounds.
float output_scale(int64_t channels) { return 0.1f * std::sqrt(static_cast<float>(channels * 9)); }

Graph qdq_conv(int64_t channels = kChannels, int64_t weight_zero = 0) {
  Graph g;
  g.set_value(Value{"xq", DType::UInt8, {1, channels, 6, 6}, nullptr});
  g.inputs = {"xq"};
  add_constant(g, "sx", Tensor::floats({}, {0.05f}));
  add_constant(g, "zx", Tensor::ints({}, {7}, DType::UInt8));
  std::vector<int64_t> w(static_cast<size_t>(kOut * channels * 9));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>(i * 37 % 255) - 127;
  add_constant(g, "wq", Tensor::ints({kOut, channels, 3, 3}, w, DType::Int8));
  add_constant(g, "sw", Tensor::floats({kOut, 1, 1, 1}, {0.01f, 0.02f, 0.03f, 0.04f}));
  add_constant(g, "zw", Tensor::ints({kOut, 1, 1, 1}, {0, weight_zero, 0, 0}, DType::Int8));
  add_constant(g, "bias", Tensor::floats({kOut}, {0.1f, -0.2f, 0.3f, 0.0f}));
  add_constant(g, "sy", Tensor::floats({}, {output_scale(channels)}));
  add_constant(g, "zy", Tensor::ints({}, {3}, DType::UInt8));
  Node conv = node("Conv", {"x", "w", "bias"}, {"y"});
  conv.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  conv.attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  g.nodes = {node("DequantizeLinear", {"xq", "sx", "zx"}, {"x"}), node("DequantizeLinear", {"wq", "sw", "zw"}, {"w"}),
             conv, node("Relu", {"y"}, {"r"}), node("QuantizeLinear", {"r", "sy", "zy"}, {"q"})};
  g.outputs = {"q"};
  infer_shapes(g);
  return g;
}

TEST(FuseQdq, AQuantizedConvBecomesOneIntegerConv) {
  const Graph fused = passes::fuse_qdq(qdq_conv());
  ASSERT_EQ(count_ops(fused), (std::map<std::string, int>{{"qconv2d_relu", 1}}));
  const Node& q = fused.nodes.front();
  EXPECT_EQ(q.inputs[0], "xq");
  EXPECT_EQ(q.outputs[0], "q");
  EXPECT_EQ(q.attr_ints("pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  const Tensor& w = *fused.constant(q.inputs[1]);
  const Tensor& bias = *fused.constant(q.inputs[2]);
  const Tensor& scale = *fused.constant(q.inputs[3]);
  const Tensor& zeros = *fused.constant(q.inputs[4]);
  EXPECT_EQ(w.dtype, DType::Int8);
  EXPECT_EQ(bias.dtype, DType::Int32);
  EXPECT_EQ(zeros.i64, (std::vector<int64_t>{7, 3}));
  const std::vector<double> sw = {0.01, 0.02, 0.03, 0.04}, b = {0.1, -0.2, 0.3, 0.0};
  for (int64_t k = 0; k < kOut; ++k) {
    int64_t sum = 0;
    for (int64_t i = 0; i < kChannels * 9; ++i) sum += w.i64[static_cast<size_t>(k * kChannels * 9 + i)];
    // The quantized bias less the input's zero point times the channel's weights.
    EXPECT_EQ(bias.i64[static_cast<size_t>(k)], static_cast<int64_t>(std::nearbyint(b[k] / (0.05 * sw[k]))) - 7 * sum)
        << k;
    EXPECT_NEAR(scale.f32[static_cast<size_t>(k)], 0.05 * sw[k] / output_scale(kChannels), 1e-7) << k;
  }
}

TEST(FuseQdq, WhatTheIntegerKernelCannotRunStaysFloat) {
  // A weight zero point that is not 0, channels not in fours, a float value read elsewhere.
  EXPECT_EQ(count_ops(passes::fuse_qdq(qdq_conv(kChannels, 5))).count("qconv2d_relu"), 0u);
  EXPECT_EQ(count_ops(passes::fuse_qdq(qdq_conv(6))).count("qconv2d_relu"), 0u);
  Graph shared = qdq_conv();
  shared.outputs.push_back("y");
  EXPECT_EQ(count_ops(passes::fuse_qdq(shared)).count("qconv2d_relu"), 0u);
}

// Graph g (uint8 input "xq" of `shape`, filled with i * step % 256; uint8 output "q") built with
// its integer kernels and with its QDQ nodes in float around float kernels: every output at most
// one step apart, one in twenty at most, and the outputs spread off the saturation bounds.
void expect_integer_within_one_step(const Graph& g, const Shape& shape, int64_t step) {
  BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor integer(build_model(plan_graph(g, PlanOptions{}), options));
  runtime::model::Executor floats(build_model(plan_graph(g, PlanOptions{false}), options));
  std::vector<uint8_t> x(static_cast<size_t>(element_count(shape)));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(static_cast<int64_t>(i) * step % 256);
  const runtime::model::HostTensors in = {{"xq", HostTensor::uint8s(shape, x)}};
  const HostTensor a = integer.run(in).at("q"), b = floats.run(in).at("q");
  ASSERT_EQ(a.elements(), b.elements());
  int64_t apart = 0;
  std::set<double> values;
  for (int64_t i = 0; i < a.elements(); ++i) {
    EXPECT_LE(std::abs(a.at(i) - b.at(i)), 1.0) << "element " << i;
    apart += a.at(i) != b.at(i);
    values.insert(a.at(i));
  }
  EXPECT_LE(apart * 20, a.elements()) << apart << " of " << a.elements() << " one step apart";
  EXPECT_GT(values.size(), 20u) << "outputs off the saturation bounds";
}

// The integer conv against the float nodes it replaced (DequantizeLinear, a float kernel,
// QuantizeLinear), built and run on the same uint8 inputs: at most one step apart, and rarely.
TEST(FuseQdq, TheIntegerConvIsWithinOneStepOfTheFloatNodes) {
  for (int64_t channels : {int64_t{8}, int64_t{32}}) {
    SCOPED_TRACE(channels);
    expect_integer_within_one_step(qdq_conv(channels), {1, channels, 6, 6}, 53);
  }
}

// A depthwise conv in the same pattern (group = C = K, weights [C, 1, 3, 3] per channel), stride 2
// so the edges take the input's zero point on one side only.
Graph qdq_depthwise(int64_t channels) {
  Graph g;
  g.set_value(Value{"xq", DType::UInt8, {1, channels, 9, 9}, nullptr});
  g.inputs = {"xq"};
  add_constant(g, "sx", Tensor::floats({}, {0.05f}));
  add_constant(g, "zx", Tensor::ints({}, {7}, DType::UInt8));
  std::vector<int64_t> w(static_cast<size_t>(channels * 9));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>(i * 53 % 255) - 127;
  add_constant(g, "wq", Tensor::ints({channels, 1, 3, 3}, w, DType::Int8));
  std::vector<float> sw(static_cast<size_t>(channels)), bias(static_cast<size_t>(channels));
  std::vector<int64_t> zw(static_cast<size_t>(channels), 0);
  for (size_t i = 0; i < sw.size(); ++i) {
    sw[i] = 0.01f + 0.001f * static_cast<float>(i % 7);
    bias[i] = 0.1f * static_cast<float>(i % 5) - 0.2f;
  }
  add_constant(g, "sw", Tensor::floats({channels, 1, 1, 1}, sw));
  add_constant(g, "zw", Tensor::ints({channels, 1, 1, 1}, zw, DType::Int8));
  add_constant(g, "bias", Tensor::floats({channels}, bias));
  add_constant(g, "sy", Tensor::floats({}, {output_scale(1)}));
  add_constant(g, "zy", Tensor::ints({}, {3}, DType::UInt8));
  Node conv = node("Conv", {"x", "w", "bias"}, {"y"});
  conv.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  conv.attrs["strides"] = std::vector<int64_t>{2, 2};
  conv.attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  conv.attrs["group"] = channels;
  g.nodes = {node("DequantizeLinear", {"xq", "sx", "zx"}, {"x"}), node("DequantizeLinear", {"wq", "sw", "zw"}, {"w"}),
             conv, node("Relu", {"y"}, {"r"}), node("QuantizeLinear", {"r", "sy", "zy"}, {"q"})};
  g.outputs = {"q"};
  infer_shapes(g);
  return g;
}

// The depthwise conv runs on integers (a ragged last block when C is not a multiple of 16) and
// against the float nodes it replaced, on the same uint8 inputs, is at most one step apart, rarely.
TEST(FuseQdq, AQuantizedDepthwiseConvRunsOnIntegersWithinOneStep) {
  for (int64_t channels : {int64_t{16}, int64_t{24}}) {
    SCOPED_TRACE(channels);
    const Graph g = qdq_depthwise(channels);
    EXPECT_EQ(count_ops(passes::fuse_qdq(g)), (std::map<std::string, int>{{"qdepthwise2d_relu", 1}}));
    const Graph planned = plan_graph(g, PlanOptions{});
    EXPECT_EQ(count_ops(planned).count("qdepthwise_nchwc_relu"), 1u);
    expect_integer_within_one_step(g, {1, channels, 9, 9}, 71);
  }
}

// DequantizeLinear(x [1, 6, K]) -> MatMul(DequantizeLinear(w [K, 20], per-column scales)) -> Add
// bias -> QuantizeLinear, as the import normalizes a QDQ transformer's projection.
constexpr int64_t kColumns = 20;

// About 40 steps for the typical output: most between the bounds.
float dense_output_scale(int64_t k) { return 1.5f * std::sqrt(static_cast<float>(k)) / 8; }

Graph qdq_matmul(int64_t k = 32, bool per_column = true) {
  Graph g;
  g.set_value(Value{"xq", DType::UInt8, {1, 6, k}, nullptr});
  g.inputs = {"xq"};
  add_constant(g, "sx", Tensor::floats({}, {0.05f}));
  add_constant(g, "zx", Tensor::ints({}, {9}, DType::UInt8));
  std::vector<int64_t> w(static_cast<size_t>(k * kColumns));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>(i * 41 % 255) - 127;
  add_constant(g, "wq", Tensor::ints({k, kColumns}, w, DType::Int8));
  std::vector<float> sw(static_cast<size_t>(per_column ? kColumns : 1)), bias(static_cast<size_t>(kColumns));
  for (size_t i = 0; i < sw.size(); ++i) sw[i] = 0.01f + 0.002f * static_cast<float>(i);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.05f * static_cast<float>(i) - 0.4f;
  add_constant(g, "sw", Tensor::floats({static_cast<int64_t>(sw.size())}, sw));
  add_constant(g, "zw",
               Tensor::ints({static_cast<int64_t>(sw.size())}, std::vector<int64_t>(sw.size(), 0), DType::Int8));
  add_constant(g, "bias", Tensor::floats({kColumns}, bias));
  add_constant(g, "sy", Tensor::floats({}, {dense_output_scale(k)}));
  add_constant(g, "zy", Tensor::ints({}, {120}, DType::UInt8));
  Node dw = node("DequantizeLinear", {"wq", "sw", "zw"}, {"w"});
  dw.attrs["axis"] = int64_t{1};
  g.nodes = {node("DequantizeLinear", {"xq", "sx", "zx"}, {"x"}), dw, node("MatMul", {"x", "w"}, {"y"}),
             node("Add", {"y", "bias"}, {"yb"}), node("QuantizeLinear", {"yb", "sy", "zy"}, {"q"})};
  g.outputs = {"q"};
  infer_shapes(g);
  return g;
}

TEST(FuseQdq, AQuantizedMatMulBecomesOneIntegerDense) {
  const Graph fused = passes::fuse_qdq(qdq_matmul());
  ASSERT_EQ(count_ops(fused), (std::map<std::string, int>{{"qdense", 1}}));
  const Node& q = fused.nodes.front();
  EXPECT_EQ(q.inputs[0], "xq");
  EXPECT_EQ(q.outputs[0], "q");
  const Tensor& w = *fused.constant(q.inputs[1]);
  const Tensor& bias = *fused.constant(q.inputs[2]);
  const Tensor& scale = *fused.constant(q.inputs[3]);
  EXPECT_EQ(fused.constant(q.inputs[4])->i64, (std::vector<int64_t>{9, 120}));
  for (int64_t n = 0; n < kColumns; ++n) {
    int64_t sum = 0;
    for (int64_t k = 0; k < 32; ++k) sum += w.i64[static_cast<size_t>(k * kColumns + n)];
    // As the graph holds them: float32.
    const double sw = 0.01f + 0.002f * static_cast<float>(n), b = 0.05f * static_cast<float>(n) - 0.4f;
    EXPECT_EQ(bias.i64[static_cast<size_t>(n)], static_cast<int64_t>(std::nearbyint(b / (0.05 * sw))) - 9 * sum) << n;
    EXPECT_NEAR(scale.f32[static_cast<size_t>(n)], 0.05f * sw / dense_output_scale(32), 1e-6) << n;
  }
  // Planned, it is one kernel with the weight packed as the kernel reads it.
  const auto planned = count_ops(plan_graph(qdq_matmul(), PlanOptions{}));
  EXPECT_EQ(planned, (std::map<std::string, int>{{"qdense_packed", 1}}));
}

TEST(FuseQdq, AMatMulTheIntegerKernelCannotRunStaysFloat) {
  // k not in fours; the float product read elsewhere.
  EXPECT_EQ(count_ops(passes::fuse_qdq(qdq_matmul(30))).count("qdense"), 0u);
  Graph shared = qdq_matmul();
  shared.outputs.push_back("y");
  EXPECT_EQ(count_ops(passes::fuse_qdq(shared)).count("qdense"), 0u);
}

// The integer dense against the float nodes it replaced, built and run on the same uint8 inputs.
TEST(FuseQdq, TheIntegerDenseIsWithinOneStepOfTheFloatNodes) {
  for (bool per_column : {true, false}) {
    SCOPED_TRACE(per_column ? "per-column weight scales" : "one weight scale");
    expect_integer_within_one_step(qdq_matmul(64, per_column), {1, 6, 64}, 53);
  }
}

// A quantized residual block's tail as QDQ exporters write it: DequantizeLinear of both operands,
// Add, QuantizeLinear, DequantizeLinear, Relu, QuantizeLinear.
Graph qdq_residual_add() {
  Graph g;
  const Shape shape = {1, 16, 6, 6};
  g.set_value(Value{"aq", DType::UInt8, shape, nullptr});
  g.set_value(Value{"bq", DType::UInt8, shape, nullptr});
  g.inputs = {"aq", "bq"};
  add_constant(g, "sa", Tensor::floats({}, {0.05f}));
  add_constant(g, "za", Tensor::ints({}, {100}, DType::UInt8));
  add_constant(g, "sb", Tensor::floats({}, {0.031f}));
  add_constant(g, "zb", Tensor::ints({}, {140}, DType::UInt8));
  add_constant(g, "ss", Tensor::floats({}, {0.07f}));
  add_constant(g, "zs", Tensor::ints({}, {128}, DType::UInt8));
  add_constant(g, "sr", Tensor::floats({}, {0.04f}));
  add_constant(g, "zr", Tensor::ints({}, {0}, DType::UInt8));
  g.nodes = {node("DequantizeLinear", {"aq", "sa", "za"}, {"a"}),
             node("DequantizeLinear", {"bq", "sb", "zb"}, {"b"}),
             node("Add", {"a", "b"}, {"sum"}),
             node("QuantizeLinear", {"sum", "ss", "zs"}, {"sumq"}),
             node("DequantizeLinear", {"sumq", "ss", "zs"}, {"sumd"}),
             node("Relu", {"sumd"}, {"r"}),
             node("QuantizeLinear", {"r", "sr", "zr"}, {"q"})};
  g.outputs = {"q"};
  infer_shapes(g);
  return g;
}

// The whole tail is one kernel that reads both operands' bytes and writes the result's, and it
// computes what the nodes run one by one compute, to the bit: its uint8 intermediate is the value
// the separate QuantizeLinear would store.
TEST(FuseQdq, AQuantizedResidualAddRunsAsOneKernelOverBytes) {
  const Graph g = qdq_residual_add();
  const Graph fused = passes::fuse_elementwise(g);
  ASSERT_EQ(count_ops(fused), (std::map<std::string, int>{{kFusedElementwise, 1}}));
  const Node& f = fused.nodes.front();
  EXPECT_EQ(f.attr_string("ops", ""),
            "DequantizeLinear,DequantizeLinear,Add,QuantizeLinear,DequantizeLinear,Relu,QuantizeLinear");
  EXPECT_EQ(f.inputs[0], "aq");
  EXPECT_NE(std::find(f.inputs.begin(), f.inputs.end(), "bq"), f.inputs.end());
  EXPECT_EQ(f.outputs, std::vector<std::string>{"q"});

  BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor one(build_model(plan_graph(g, PlanOptions{false}), options));
  runtime::model::Executor apart(build_model(g, options));
  std::vector<uint8_t> a(16 * 36), b(16 * 36);
  // Every pair of operand bytes, 576 pairs a run.
  for (int64_t first = 0; first < 65536; first += static_cast<int64_t>(a.size())) {
    for (size_t i = 0; i < a.size(); ++i) {
      const int64_t pair = (first + static_cast<int64_t>(i)) % 65536;
      a[i] = static_cast<uint8_t>(pair & 255);
      b[i] = static_cast<uint8_t>(pair >> 8);
    }
    const runtime::model::HostTensors in = {{"aq", HostTensor::uint8s({1, 16, 6, 6}, a)},
                                            {"bq", HostTensor::uint8s({1, 16, 6, 6}, b)}};
    const HostTensor x = one.run(in).at("q"), y = apart.run(in).at("q");
    ASSERT_EQ(x.elements(), y.elements());
    for (int64_t i = 0; i < x.elements(); ++i) ASSERT_EQ(x.at(i), y.at(i)) << "a " << int(a[i]) << " b " << int(b[i]);
  }
}

// DequantizeLinear -> MaxPool (3x3, stride 2, padded) -> QuantizeLinear with scale `sy`, zero point 7.
Graph qdq_max_pool(float sy) {
  Graph g;
  g.set_value(Value{"xq", DType::UInt8, {1, 16, 9, 9}, nullptr});
  g.inputs = {"xq"};
  add_constant(g, "sx", Tensor::floats({}, {0.05f}));
  add_constant(g, "zx", Tensor::ints({}, {7}, DType::UInt8));
  add_constant(g, "sy", Tensor::floats({}, {sy}));
  add_constant(g, "zy", Tensor::ints({}, {7}, DType::UInt8));
  Node pool = node("MaxPool", {"x"}, {"p"});
  pool.attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  pool.attrs["strides"] = std::vector<int64_t>{2, 2};
  pool.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  g.nodes = {node("DequantizeLinear", {"xq", "sx", "zx"}, {"x"}), pool,
             node("QuantizeLinear", {"p", "sy", "zy"}, {"q"})};
  g.outputs = {"q"};
  infer_shapes(g);
  return g;
}

// Between a DequantizeLinear and a QuantizeLinear of the same parameters a MaxPool pools the bytes
// (max_pool2d_u8), and gives the float nodes' bytes exactly, for every byte value; with another
// output scale the nodes stay float.
TEST(FuseQdq, AMaxPoolBetweenOneQuantizationPoolsTheBytes) {
  const Graph g = qdq_max_pool(0.05f);
  const Graph fused = passes::fuse_qdq(g);
  ASSERT_EQ(count_ops(fused), (std::map<std::string, int>{{"MaxPool", 1}}));
  EXPECT_EQ(fused.nodes.front().inputs, std::vector<std::string>{"xq"});
  EXPECT_EQ(fused.nodes.front().outputs, std::vector<std::string>{"q"});
  EXPECT_EQ(count_ops(passes::fuse_qdq(qdq_max_pool(0.06f))).count("DequantizeLinear"), 1u);

  BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor bytes(build_model(plan_graph(g, PlanOptions{}), options));
  runtime::model::Executor floats(build_model(g, options));
  std::vector<uint8_t> x(16 * 81);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 97 % 256);
  const runtime::model::HostTensors in = {{"xq", HostTensor::uint8s({1, 16, 9, 9}, x)}};
  const HostTensor a = bytes.run(in).at("q"), b = floats.run(in).at("q");
  ASSERT_EQ(a.elements(), 16 * 25);
  std::set<double> values;
  for (int64_t i = 0; i < a.elements(); ++i) {
    ASSERT_EQ(a.at(i), b.at(i)) << "element " << i;
    values.insert(a.at(i));
  }
  EXPECT_GT(values.size(), 50u) << "outputs of many byte values";
}

// A float value quantized and dequantized for a float reader (fake quantization before a float
// kernel) stays two kernels: fused, the float result would be live beside the float input, where
// the bytes between them were a quarter of that.
TEST(FuseQdq, AQuantizeRoundTripToFloatStaysTwoKernels) {
  Graph g;
  g.set_value(Value{"x", DType::Float32, {1, 16, 6, 6}, nullptr});
  g.inputs = {"x"};
  add_constant(g, "s", Tensor::floats({}, {0.05f}));
  add_constant(g, "z", Tensor::ints({}, {0}, DType::UInt8));
  g.nodes = {node("Relu", {"x"}, {"r"}), node("QuantizeLinear", {"r", "s", "z"}, {"q"}),
             node("DequantizeLinear", {"q", "s", "z"}, {"d"}), node("Sigmoid", {"d"}, {"y"})};
  g.outputs = {"y"};
  infer_shapes(g);
  const Graph fused = passes::fuse_elementwise(g);
  ASSERT_EQ(count_ops(fused), (std::map<std::string, int>{{kFusedElementwise, 2}}));
  EXPECT_EQ(fused.nodes[0].attr_string("ops", ""), "Relu,QuantizeLinear");
  EXPECT_EQ(fused.nodes[1].attr_string("ops", ""), "DequantizeLinear,Sigmoid");
}

// Every conv but the first (three input channels) runs on integers, in blocked uint8 layouts.
TEST(FuseQdq, TheQdqResNet18PlansItsConvsOnIntegers) {
  const Graph g = import_onnx_file(std::string(TF_MODELS_DIR) + "/resnet18_qdq.onnx");
  const auto ops = count_ops(plan_graph(g, PlanOptions{}));
  EXPECT_EQ(ops.count("qconv2d_nchwc") ? ops.at("qconv2d_nchwc") : 0, 11);
  EXPECT_EQ(ops.count("qconv2d_nchwc_relu") ? ops.at("qconv2d_nchwc_relu") : 0, 8);
  // The QuantizeLinear/DequantizeLinear chains between them (the residual Adds, the pool's) run on
  // the blocked values too: no layout conversion anywhere.
  for (const auto& [op, count] : ops) EXPECT_NE(op.rfind("layout_", 0), 0u) << op << " x" << count;
  // Each residual block's tail (DequantizeLinear of both operands, Add, QuantizeLinear,
  // DequantizeLinear, Relu, QuantizeLinear) is one kernel that reads both operands' bytes and writes
  // the result's. The max-pool pools the bytes. The QuantizeLinear and DequantizeLinear nodes left
  // run beside the float kernels: the input's, the first conv's, the global pool's and the classifier's.
  const Graph planned = plan_graph(g, PlanOptions{});
  int residual_kernels = 0;
  for (const Node& n : planned.nodes) {
    if (n.op != kFusedElementwise || n.attr_string("ops", "").find("Add") == std::string::npos) continue;
    ++residual_kernels;
    int byte_operands = 0;
    for (const auto& in : n.inputs) byte_operands += planned.value(in).dtype == DType::UInt8 && !planned.constant(in);
    EXPECT_EQ(byte_operands, 2) << n.name;
    EXPECT_EQ(planned.value(n.outputs.at(0)).dtype, DType::UInt8) << n.name;
  }
  EXPECT_EQ(residual_kernels, 8);
  EXPECT_EQ(ops.count("max_pool2d_nchwc_u8") ? ops.at("max_pool2d_nchwc_u8") : 0, 1);
  EXPECT_EQ(ops.count("DequantizeLinear") ? ops.at("DequantizeLinear") : 0, 4);
  EXPECT_EQ(ops.count("QuantizeLinear") ? ops.at("QuantizeLinear") : 0, 4);
  // The integer convs are tasks a model job tunes.
  size_t integer_tasks = 0;
  for (const Task& t : tunable_tasks(plan_graph(g, PlanOptions{})))
    integer_tasks += t.workload.op.rfind("qconv2d", 0) == 0;
  EXPECT_GE(integer_tasks, 10u);
  // Without blocked layouts the QDQ nodes run in float around float kernels.
  const auto plain = count_ops(plan_graph(g, PlanOptions{false}));
  EXPECT_EQ(plain.count("qconv2d_relu") + plain.count("qconv2d"), 0u);
}

// Planned for a target without VNNI, the integer convs and denses take their input bytes centred on
// 128 and their biases move to match: the same bytes out as the uncentred kernels, for one conv, the
// whole QDQ ResNet-18 and the QDQ BERT layer; a conv with a weight of -128 (which the centred
// product cannot take) stays uncentred.
TEST(FuseQdq, CenteredIntegerKernelsGiveTheSameBytes) {
  PlanOptions centered;
  centered.centered_int8 = true;
  BuildOptions options;
  options.target = codegen::host_target();
  auto expect_same_bytes = [&](const Graph& g) {
    runtime::model::Executor plain(build_model(plan_graph(g, PlanOptions{}), options));
    runtime::model::Executor moved(build_model(plan_graph(g, centered), options));
    const auto in = runtime::model::fill_random_inputs(plain);
    const auto a = plain.run(in), b = moved.run(in);
    for (const auto& [name, tensor] : a) {
      ASSERT_EQ(tensor.elements(), b.at(name).elements()) << name;
      int64_t differ = 0;
      for (int64_t i = 0; i < tensor.elements(); ++i) differ += tensor.at(i) != b.at(name).at(i);
      EXPECT_EQ(differ, 0) << name << ": " << differ << " of " << tensor.elements() << " elements differ";
    }
  };
  const Graph conv = qdq_conv(32);
  EXPECT_EQ(count_ops(plan_graph(conv, centered)).count("qconv2d_nchwc_centered_relu"), 1u);
  expect_same_bytes(conv);
  Graph extreme = qdq_conv(32);
  Tensor w = *extreme.constant("wq");
  w.i64[5] = -128;
  extreme.set_constant("wq", w);
  EXPECT_EQ(count_ops(plan_graph(extreme, centered)).count("qconv2d_nchwc_relu"), 1u);

  const Graph resnet = import_onnx_file(std::string(TF_MODELS_DIR) + "/resnet18_qdq.onnx");
  const auto ops = count_ops(plan_graph(resnet, centered));
  EXPECT_EQ(ops.count("qconv2d_nchwc_centered") ? ops.at("qconv2d_nchwc_centered") : 0, 11);
  EXPECT_EQ(ops.count("qconv2d_nchwc_centered_relu") ? ops.at("qconv2d_nchwc_centered_relu") : 0, 8);
  expect_same_bytes(resnet);

  const Graph bert = import_onnx_file(std::string(TF_MODELS_DIR) + "/bert_layer_qdq.onnx");
  const auto bert_ops = count_ops(plan_graph(bert, centered));
  EXPECT_EQ(bert_ops.count("qdense_packed"), 0u);
  EXPECT_GE(bert_ops.count("qdense_packed_centered") ? bert_ops.at("qdense_packed_centered") : 0, 4);
  expect_same_bytes(bert);
  // The centred kernels are what a model job tunes for such a target.
  std::set<std::string> tuned;
  for (const Graph* g : {&resnet, &bert})
    for (const Task& t : tunable_tasks(plan_graph(*g, centered))) tuned.insert(t.workload.op);
  EXPECT_TRUE(tuned.count("qconv2d_nchwc_centered") && tuned.count("qconv2d_nchwc_centered_relu") &&
              tuned.count("qdense_packed_centered"));
  EXPECT_FALSE(tuned.count("qconv2d_nchwc") || tuned.count("qdense_packed"));
}

// In operator form (QLinearConv, the Relus folded into saturation at zero point 0): imported as
// the QDQ groups they compute, the same nineteen convs run on integers.
TEST(FuseQdq, QLinearConvsRunOnIntegersToo) {
  const Graph g = import_onnx_file(std::string(TF_MODELS_DIR) + "/resnet18_qlinear.onnx");
  EXPECT_EQ(count_ops(g).count("QLinearConv"), 0u);
  const auto ops = count_ops(plan_graph(g, PlanOptions{}));
  const int integer = (ops.count("qconv2d_nchwc") ? ops.at("qconv2d_nchwc") : 0) +
                      (ops.count("qconv2d_nchwc_relu") ? ops.at("qconv2d_nchwc_relu") : 0);
  EXPECT_EQ(integer, 19);
  int float_convs = 0;
  for (const auto& [op, count] : ops) float_convs += op.rfind("conv2d", 0) == 0 ? count : 0;
  EXPECT_EQ(float_convs, 1) << "the three-channel first conv";
}

}  // namespace
}  // namespace tf::graph

namespace tf::graph {
namespace {

struct IntegerVsFloat {
  double max_relative = 0;   // max|a-b| / max|b|
  double mean_relative = 0;  // mean|a-b| / mean|b|
};

// A model's first output built as `planned` (integer kernels) and with its QDQ nodes run in float
// around float kernels, on the same random inputs.
IntegerVsFloat integer_vs_float(const Graph& g, const Graph& planned) {
  BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor ints(build_model(planned, options));
  runtime::model::Executor floats(build_model(plan_graph(g, PlanOptions{false}), options));
  const auto in = runtime::model::fill_random_inputs(ints);
  const HostTensor a = ints.run(in).begin()->second, b = floats.run(in).begin()->second;
  double largest = 0, diff = 0, total = 0, total_diff = 0;
  for (int64_t i = 0; i < a.elements(); ++i) {
    largest = std::max(largest, std::abs(b.at(i)));
    diff = std::max(diff, std::abs(a.at(i) - b.at(i)));
    total += std::abs(b.at(i));
    total_diff += std::abs(a.at(i) - b.at(i));
  }
  std::printf("integer vs float QDQ: max|a-b|/max|b| = %.3g, mean|a-b|/mean|b| = %.3g\n", diff / largest,
              total_diff / total);
  return {diff / largest, total_diff / total};
}

// The QDQ BERT-base layer: its six projections run on integers; against the same model with its
// QDQ nodes run in float around float kernels, on the same inputs. Each integer product is within
// one step of the float nodes (above), but a step taken in one layer moves the next layer's
// sums, so steps spread through the seven requantizations: about 1.4% of the typical output apart
// here. A wrong scale, zero point or bias moves whole layers, tens of percent.
TEST(FuseQdq, TheQdqBertLayerRunsItsProjectionsOnIntegers) {
  const Graph g = import_onnx_file(std::string(TF_MODELS_DIR) + "/bert_layer_qdq.onnx");
  const Graph planned = plan_graph(g, PlanOptions{});
  int integer = 0;
  for (const Node& n : planned.nodes) integer += n.op == "qdense_packed";
  EXPECT_EQ(integer, 6);
  const IntegerVsFloat d = integer_vs_float(g, planned);
  EXPECT_LE(d.max_relative, 0.05);
  EXPECT_LE(d.mean_relative, 0.03);
}

}  // namespace
}  // namespace tf::graph

namespace tf::graph {
namespace {

// The QDQ MobileNetV2: every conv but the first (three channels) runs on integers, the depthwise
// ones as qdepthwise_nchwc; against the same model with its QDQ nodes run in float around float
// kernels, on the same inputs: steps taken at fifty-two requantizations, 3.7% of the largest
// logit apart on Zen 3 (ModelVsOrt puts both beside ONNX Runtime's).
TEST(FuseQdq, TheQdqMobileNetV2RunsItsConvsOnIntegers) {
  const Graph g = import_onnx_file(std::string(TF_MODELS_DIR) + "/mobilenetv2_qdq.onnx");
  const Graph planned = plan_graph(g, PlanOptions{});
  const auto ops = count_ops(planned);
  EXPECT_EQ(ops.count("qdepthwise_nchwc_relu") ? ops.at("qdepthwise_nchwc_relu") : 0, 17);
  const IntegerVsFloat d = integer_vs_float(g, planned);
  EXPECT_LE(d.max_relative, 0.06);
  EXPECT_LE(d.mean_relative, 0.06);
}

}  // namespace
}  // namespace tf::graph

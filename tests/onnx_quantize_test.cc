// QuantizeLinear and DequantizeLinear as ONNX defines them, through import, plan, build and the
// executor: halves rounded to even, saturation at the type's ends, uint8 without a zero point,
// per-axis scales and zero points, int8 runtime inputs and outputs; the same model with constant
// inputs folds to the same values. Blocked quantization and a scale of the wrong extent are
// refused naming the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using runtime::model::HostTensors;
using testing::OnnxModelBuilder;

// Halves (0.25 / 0.5 = 0.5, 0.75 / 0.5 = 1.5, -1.25 / 0.5 = -2.5) and values past both ends.
const std::vector<float> kQuantizeX = {0.25f, 0.75f, -1.25f, 100.0f, -1000.0f, 3.1f};
constexpr float kQuantizeScale = 0.5f;

double reference_quantize(float x, float scale, int zero_point, int lo, int hi) {
  return std::clamp(static_cast<double>(std::nearbyint(x / scale)) + zero_point, static_cast<double>(lo),
                    static_cast<double>(hi));
}

void add_scalar(OnnxModelBuilder& b, const std::string& name, int elem_type, int64_t v) {
  b.initializer(name, elem_type, {}).add_int32_data(static_cast<int32_t>(v));
}

// x -> QuantizeLinear (int8, zero point -3) -> "q"; q -> DequantizeLinear -> "dq"; x ->
// QuantizeLinear without a zero point (uint8) -> "u".
OnnxModelBuilder per_tensor_model(bool constant_x) {
  OnnxModelBuilder b(13);
  if (constant_x)
    b.floats("x", {2, 3}, kQuantizeX);
  else
    b.input("x", {2, 3});
  b.floats("scale", {}, {kQuantizeScale});
  add_scalar(b, "zero_point", onnx::TensorProto::INT8, -3);
  b.node("QuantizeLinear", {"x", "scale", "zero_point"}, {"q"}, "quantize");
  b.node("DequantizeLinear", {"q", "scale", "zero_point"}, {"dq"}, "dequantize");
  b.node("QuantizeLinear", {"x", "scale"}, {"u"}, "to_uint8");
  b.output("q").output("dq").output("u");
  return b;
}

void expect_per_tensor(const HostTensors& out) {
  ASSERT_EQ(out.at("q").dtype, DType::Int8);
  ASSERT_EQ(out.at("u").dtype, DType::UInt8);
  const std::vector<int8_t> q = out.at("q").as_int8s();
  const std::vector<uint8_t> u = out.at("u").as_uint8s();
  const std::vector<float> dq = out.at("dq").as_floats();
  for (size_t i = 0; i < kQuantizeX.size(); ++i) {
    const double want = reference_quantize(kQuantizeX[i], kQuantizeScale, -3, -128, 127);
    EXPECT_EQ(q[i], want) << i;
    EXPECT_EQ(u[i], reference_quantize(kQuantizeX[i], kQuantizeScale, 0, 0, 255)) << i;
    EXPECT_EQ(dq[i], static_cast<float>(want + 3) * kQuantizeScale) << i;
  }
  // The halves went to the even neighbour.
  EXPECT_EQ(q[0], -3);
  EXPECT_EQ(q[1], -1);
  EXPECT_EQ(q[2], -5);
  EXPECT_EQ(q[3], 127);
  EXPECT_EQ(q[4], -128);
}

TEST(OnnxQuantize, PerTensorKernelsRoundHalvesToEvenAndSaturate) {
  runtime::model::Executor exec(testing::build_with_defaults(per_tensor_model(false)));
  expect_per_tensor(exec.run({{"x", HostTensor::floats({2, 3}, kQuantizeX)}}));
}

TEST(OnnxQuantize, ConstantInputsFoldToTheSameValues) {
  runtime::model::Executor exec(testing::build_with_defaults(per_tensor_model(true)));
  expect_per_tensor(exec.run({}));
}

TEST(OnnxQuantize, PerAxisScalesAndZeroPointsQuantizeEachChannel) {
  // x [1,3,2,2], one scale and zero point per channel (axis 1), an int8 runtime input dequantized.
  OnnxModelBuilder b(13);
  b.input("x", {1, 3, 2, 2}).input("w", {3, 2}, onnx::TensorProto::INT8);
  b.floats("scale", {3}, {0.5f, 0.25f, 2.0f});
  auto& zp = b.initializer("zero_point", onnx::TensorProto::INT8, {3});
  for (int v : {0, 10, -20}) zp.add_int32_data(v);
  b.floats("w_scale", {3}, {0.1f, 0.2f, 0.3f});
  OnnxModelBuilder::attr(b.node("QuantizeLinear", {"x", "scale", "zero_point"}, {"q"}, "per_channel"), "axis",
                         int64_t{1});
  OnnxModelBuilder::attr(b.node("DequantizeLinear", {"w", "w_scale", "zero_point"}, {"w_float"}, "weights"), "axis",
                         int64_t{0});
  b.output("q").output("w_float");
  runtime::model::Executor exec(testing::build_with_defaults(b));
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -3.0f + 0.75f * static_cast<float>(i);
  const std::vector<int8_t> w = {-128, 127, 5, -5, 0, 100};
  const HostTensors out = exec.run({{"x", HostTensor::floats({1, 3, 2, 2}, x)}, {"w", HostTensor::int8s({3, 2}, w)}});
  const std::vector<int8_t> q = out.at("q").as_int8s();
  const float scales[] = {0.5f, 0.25f, 2.0f};
  const int zero_points[] = {0, 10, -20};
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = i / 4;
    EXPECT_EQ(q[i], reference_quantize(x[i], scales[c], zero_points[c], -128, 127)) << i;
  }
  const std::vector<float> wf = out.at("w_float").as_floats();
  const float w_scales[] = {0.1f, 0.2f, 0.3f};
  for (size_t i = 0; i < w.size(); ++i) {
    const size_t row = i / 2;
    EXPECT_EQ(wf[i], static_cast<float>(w[i] - zero_points[row]) * w_scales[row]) << i;
  }
}

TEST(OnnxQuantize, BlockedQuantizationAndAScaleOfTheWrongExtentAreRefusedByName) {
  OnnxModelBuilder blocked(21);
  blocked.input("x", {4, 4}).floats("scale", {4, 2}, std::vector<float>(8, 0.5f)).output("q");
  OnnxModelBuilder::attr(blocked.node("QuantizeLinear", {"x", "scale"}, {"q"}, "blocks"), "block_size", int64_t{2});
  std::string why = testing::import_error(blocked);
  EXPECT_NE(why.find("blocks"), std::string::npos) << why;
  EXPECT_NE(why.find("blocked quantization is not supported"), std::string::npos) << why;

  OnnxModelBuilder wrong(13);
  wrong.input("x", {1, 3, 2, 2}).floats("scale", {4}, std::vector<float>(4, 0.5f)).output("q");
  wrong.node("QuantizeLinear", {"x", "scale"}, {"q"}, "mismatch");
  why = testing::import_error(wrong);
  EXPECT_NE(why.find("mismatch"), std::string::npos) << why;
  EXPECT_NE(why.find("scale has 4 elements; input 0 [1,3,2,2] has 3 along axis 1"), std::string::npos) << why;
}

// QLinearConv as a hostile or careless exporter writes it: without its output zero point, or with
// a per-channel weight zero point that does not match its scales. Refused naming the node.
TEST(OnnxQuantize, ABrokenQLinearConvIsRefusedByName) {
  auto qlinear_conv = [](bool with_output_zero, int64_t weight_zeros) {
    OnnxModelBuilder b(13);
    b.input("x", {1, 4, 5, 5}, onnx::TensorProto::UINT8).output("y");
    b.floats("sx", {}, {0.1f}).floats("sw", {2}, {0.01f, 0.02f}).floats("sy", {}, {0.2f});
    add_scalar(b, "zx", onnx::TensorProto::UINT8, 3);
    add_scalar(b, "zy", onnx::TensorProto::UINT8, 0);
    auto& w = b.initializer("w", onnx::TensorProto::INT8, {2, 4, 3, 3});
    for (int i = 0; i < 72; ++i) w.add_int32_data(i % 7 - 3);
    auto& zw = b.initializer("zw", onnx::TensorProto::INT8, {weight_zeros});
    for (int64_t i = 0; i < weight_zeros; ++i) zw.add_int32_data(0);
    std::vector<std::string> in = {"x", "sx", "zx", "w", "sw", "zw", "sy"};
    if (with_output_zero) in.push_back("zy");
    b.node("QLinearConv", in, {"y"}, "qconv");
    return testing::import_error(b);
  };
  std::string why = qlinear_conv(false, 2);
  EXPECT_NE(why.find("qconv"), std::string::npos) << why;
  EXPECT_NE(why.find("input 7 is required"), std::string::npos) << why;
  why = qlinear_conv(true, 3);
  EXPECT_NE(why.find("qconv"), std::string::npos) << why;
  EXPECT_NE(why.find("zero point [3] and scale [2] differ in shape"), std::string::npos) << why;
  EXPECT_EQ(qlinear_conv(true, 2), "");  // well formed: imports
}

// Cast into a byte: a float saturates at the type's ends (ONNX leaves it undefined; a plain
// conversion would be poison in the kernel), an integer keeps its low bits as NumPy's astype does.
// The kernel and the fold of the same model with constant inputs agree.
TEST(OnnxQuantize, CastsIntoBytesSaturateFloatsAndWrapIntegers) {
  const std::vector<float> floats = {-300.7f, -128.9f, -1.5f, 0.9f, 127.9f, 1e9f};
  const std::vector<int64_t> ints = {-1, 255, 256, 300, -129, 7};
  for (bool constants : {false, true}) {
    SCOPED_TRACE(constants ? "folded" : "kernels");
    OnnxModelBuilder b(13);
    if (constants)
      b.floats("f", {6}, floats).ints("i", {6}, ints);
    else
      b.input("f", {6}).input("i", {6}, onnx::TensorProto::INT64);
    OnnxModelBuilder::attr(b.node("Cast", {"f"}, {"f_int8"}), "to", int64_t{onnx::TensorProto::INT8});
    OnnxModelBuilder::attr(b.node("Cast", {"f"}, {"f_uint8"}), "to", int64_t{onnx::TensorProto::UINT8});
    OnnxModelBuilder::attr(b.node("Cast", {"i"}, {"i_uint8"}), "to", int64_t{onnx::TensorProto::UINT8});
    b.output("f_int8").output("f_uint8").output("i_uint8");
    runtime::model::Executor exec(testing::build_with_defaults(b));
    HostTensors feeds;
    if (!constants) feeds = {{"f", HostTensor::floats({6}, floats)}, {"i", HostTensor::int64s({6}, ints)}};
    const HostTensors out = exec.run(feeds);
    EXPECT_EQ(out.at("f_int8").as_int8s(), (std::vector<int8_t>{-128, -128, -1, 0, 127, 127}));
    EXPECT_EQ(out.at("f_uint8").as_uint8s(), (std::vector<uint8_t>{0, 0, 0, 0, 127, 255}));
    EXPECT_EQ(out.at("i_uint8").as_uint8s(), (std::vector<uint8_t>{255, 255, 0, 44, 127, 7}));
  }
}

}  // namespace
}  // namespace tf::graph

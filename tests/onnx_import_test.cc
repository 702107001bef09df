// ONNX import: the generated models (ResNet-18, MobileNetV2, a BERT-base encoder layer) arrive with
// their structure and shapes; every refusal names node, op, attribute and opset; malformed files are
// errors, never crashes.
#include <gtest/gtest.h>
#include <set>

#include <fstream>
#include <random>

#include "compiler/error.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"
#include "tests/test_files.h"

namespace tf::graph {
namespace {

using testing_support::model_path;

using testing::error_of;
using testing::import_error;
using testing::OnnxModelBuilder;

const Node& first(const Graph& g, const std::string& op) {
  for (const auto& n : g.nodes) {
    if (n.op == op) return n;
  }
  throw std::runtime_error("no " + op);
}

TEST(OnnxImport, ResNet18ArrivesWithItsStructureAndShapes) {
  const Graph g = import_onnx_file(model_path("resnet18"));
  const std::map<std::string, int> expected = {{"Add", 8},  {"BatchNormalization", 20}, {"Conv", 20},   {"Flatten", 1},
                                               {"Gemm", 1}, {"GlobalAveragePool", 1},   {"MaxPool", 1}, {"Relu", 17}};
  EXPECT_EQ(count_ops(g), expected);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Shape{1, 3, 224, 224}));
  EXPECT_EQ(g.value(g.outputs.at(0)).shape, (Shape{1, 1000}));
  EXPECT_EQ(g.output_of(first(g, "Conv")).shape, (Shape{1, 64, 112, 112}));
  EXPECT_EQ(g.output_of(first(g, "MaxPool")).shape, (Shape{1, 64, 56, 56}));
  EXPECT_EQ(g.output_of(first(g, "GlobalAveragePool")).shape, (Shape{1, 512, 1, 1}));
  EXPECT_EQ(first(g, "Conv").attr_ints("pads", {}), (std::vector<int64_t>{3, 3, 3, 3}));
}

TEST(OnnxImport, TheSymbolicBatchIsFixedAtImport) {
  ImportOptions four;
  four.batch = 4;
  const Graph g = import_onnx_file(model_path("resnet18"), four);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Shape{4, 3, 224, 224}));
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Shape{4, 1000}));
  ImportOptions zero;
  zero.batch = 0;
  EXPECT_NE(error_of([&] { import_onnx_file(model_path("resnet18"), zero); }).find("batch 0 must be positive"),
            std::string::npos);
}

TEST(OnnxImport, MobileNetV2ArrivesWithDepthwiseConvsAndRelu6) {
  const Graph g = import_onnx_file(model_path("mobilenetv2"));
  const auto ops = count_ops(g);
  EXPECT_EQ(ops.at("Conv"), 52);
  EXPECT_EQ(ops.at("BatchNormalization"), 52);
  EXPECT_EQ(ops.at("Clip"), 35);
  EXPECT_EQ(ops.at("Add"), 10);
  int depthwise = 0;
  for (const auto& n : g.nodes) {
    if (n.op == "Conv" && n.attr_int("group", 1) > 1) {
      ++depthwise;
      EXPECT_EQ(n.attr_int("group", 1), g.input_of(n, 0).shape[1]) << n.name;
    }
  }
  EXPECT_EQ(depthwise, 17);
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Shape{1, 1000}));
}

TEST(OnnxImport, BertLayerFoldsItsShapeArithmetic) {
  const Graph g = import_onnx_file(model_path("bert_layer"));
  const auto ops = count_ops(g);
  for (const char* folded : {"Shape", "Gather", "Unsqueeze", "Concat", "Cast"})
    EXPECT_EQ(ops.count(folded), 0u) << folded;
  EXPECT_EQ(ops.at("MatMul"), 8);
  EXPECT_EQ(ops.at("Reshape"), 4);
  EXPECT_EQ(ops.at("LayerNormalization"), 2);
  const Node& reshape = first(g, "Reshape");
  const Tensor* target = g.constant(reshape.inputs[1]);
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->i64, (std::vector<int64_t>{1, 128, 12, 64}));
  for (const auto& n : g.nodes) {
    if (n.op == "Softmax") {
      EXPECT_EQ(g.output_of(n).shape, (Shape{1, 12, 128, 128}));
    }
  }
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Shape{1, 128, 768}));
}

TEST(OnnxImport, PlannedModelsCallTheFusedKernelsTheirArithmeticSays) {
  const Graph resnet = plan_graph(import_onnx_file(model_path("resnet18")), PlanOptions{false});
  const std::map<std::string, int> expected = {{"Flatten", 1},     {"GlobalAveragePool", 1},    {"MaxPool", 1},
                                               {"conv2d_bias", 3}, {"conv2d_bias_add_relu", 8}, {"conv2d_bias_relu", 9},
                                               {"dense_bias", 1}};
  EXPECT_EQ(count_ops(resnet), expected);
  const auto tasks = tunable_tasks(resnet);
  // 16 distinct kernels, on plain layouts: no Winograd alternatives (they are blocked kernels).
  EXPECT_EQ(tasks.size(), 16u);
  int64_t flops = 0, calls = 0;
  double share = 0;
  std::set<int> groups;
  for (const auto& t : tasks) {
    if (t.group >= 0 && !groups.insert(t.group).second) continue;  // a node's work once
    flops += t.flops, calls += t.count, share += t.share;
  }
  EXPECT_EQ(groups.size(), 0u);
  EXPECT_EQ(calls, 21);  // 20 convolutions and the classifier
  EXPECT_NEAR(share, 1.0, 1e-9);
  // ResNet-18 at 224x224: 1.814 G multiply-adds.
  EXPECT_NEAR(static_cast<double>(flops) / 2e9, 1.814, 0.01);

  const Graph bert = plan_graph(import_onnx_file(model_path("bert_layer")), PlanOptions{false});
  const auto bert_tasks = tunable_tasks(bert);
  const int64_t s = 128, h = 768, f = 3072, heads = 12, d = 64;
  std::map<std::string, int64_t> counts;
  int64_t bert_flops = 0;
  for (const auto& t : bert_tasks) counts[t.workload.str()] = t.count, bert_flops += t.flops;
  // The FFN is two kernels (GELU and the residual in their epilogues), and so is the attention
  // output; the heads' scores, scale, mask, softmax and products are one attention kernel.
  const std::map<std::string, int64_t> expected_counts = {{"dense_bias[128,768,768]", 3},
                                                          {"dense_bias_add[128,768,768]", 1},
                                                          {"dense_bias_gelu[128,3072,768]", 1},
                                                          {"dense_bias_add[128,768,3072]", 1},
                                                          {"attention_masked[1,128,128,12,64,125000000]", 1}};
  EXPECT_EQ(counts, expected_counts);
  EXPECT_EQ(bert_flops, 2 * s * (4 * h * h + 2 * h * f) + 2 * heads * 2 * s * s * d);
  EXPECT_EQ(count_ops(bert).count(kFusedElementwise), 0u);
  EXPECT_EQ(count_ops(bert).count("Transpose"), 0u);

  const Graph mobilenet = plan_graph(import_onnx_file(model_path("mobilenetv2")), PlanOptions{false});
  const auto ops = count_ops(mobilenet);
  EXPECT_EQ(ops.at("conv2d_bias_clip"), 35);
  EXPECT_EQ(ops.at("conv2d_bias"), 7);
  EXPECT_EQ(ops.at("conv2d_bias_add"), 10);  // each residual Add is the projection conv's epilogue
  EXPECT_EQ(ops.count("Add"), 0u);
  int64_t mobilenet_flops = 0;
  for (const auto& t : tunable_tasks(mobilenet)) mobilenet_flops += t.flops;
  // MobileNetV2 1.0 at 224x224: about 300 M multiply-adds.
  EXPECT_NEAR(static_cast<double>(mobilenet_flops) / 2e6, 300, 15);
}

TEST(OnnxImport, AnUnsupportedOpIsNamedWithItsNodeAndOpset) {
  OnnxModelBuilder b(13);
  b.input("x", {1, 4}).output("y");
  b.node("Relu", {"x"}, {"r"}, "act");
  b.node("Det", {"r"}, {"h"}, "pick");
  b.node("LpNormalization", {"h"}, {"y"}, "norm");
  const std::string e = import_error(b);
  EXPECT_NE(e.find("2 unsupported nodes"), std::string::npos) << e;
  EXPECT_NE(e.find("node 'pick' (Det, opset 13): op Det is not supported"), std::string::npos) << e;
  EXPECT_NE(e.find("node 'norm' (LpNormalization, opset 13)"), std::string::npos) << e;
}

TEST(OnnxImport, UnsupportedAttributesAreNamed) {
  auto conv_model = [](auto set_attributes) {
    OnnxModelBuilder b(13);
    b.input("x", {1, 2, 8, 8}).output("y").floats("w", {2, 2, 3, 3}, std::vector<float>(36, 0.1f));
    set_attributes(b.node("Conv", {"x", "w"}, {"y"}, "conv"));
    return import_error(b);
  };
  std::string e = conv_model([](onnx::NodeProto& n) {
    OnnxModelBuilder::attr(n, "strides", std::vector<int64_t>{1, 2});
  });
  EXPECT_NE(e.find("node 'conv' (Conv, opset 13): attribute 'strides' = [1,2]"), std::string::npos) << e;
  e = conv_model([](onnx::NodeProto& n) { OnnxModelBuilder::attr(n, "auto_pad", std::string("SAME_WHATEVER")); });
  EXPECT_NE(e.find("attribute 'auto_pad' = 'SAME_WHATEVER' is not supported"), std::string::npos) << e;
  e = conv_model([](onnx::NodeProto& n) { OnnxModelBuilder::attr(n, "mystery", int64_t{1}); });
  EXPECT_NE(e.find("node 'conv' (Conv, opset 13): attribute 'mystery' is not supported"), std::string::npos) << e;
  e = conv_model([](onnx::NodeProto& n) { OnnxModelBuilder::attr(n, "kernel_shape", std::vector<int64_t>{5, 5}); });
  EXPECT_NE(e.find("attribute 'kernel_shape' = [5,5] differs from the weight"), std::string::npos) << e;

  OnnxModelBuilder pool(13);
  pool.input("x", {1, 2, 8, 8}).output("y");
  auto& mp = pool.node("MaxPool", {"x"}, {"y"}, "pool");
  OnnxModelBuilder::attr(mp, "kernel_shape", std::vector<int64_t>{2, 2});
  OnnxModelBuilder::attr(mp, "storage_order", int64_t{1});
  e = import_error(pool);
  EXPECT_NE(e.find("node 'pool' (MaxPool, opset 13): attribute 'storage_order' = 1 is not supported"),
            std::string::npos)
      << e;
}

TEST(OnnxImport, OpsetsOutsideOneToTwentyOneAndLateOpsAreRefused) {
  for (int64_t opset : {0, 22}) {
    OnnxModelBuilder b(opset);
    b.input("x", {1, 4}).output("y");
    b.node("Relu", {"x"}, {"y"});
    EXPECT_NE(import_error(b).find("opset " + std::to_string(opset) + " is not supported (opsets 1-21)"),
              std::string::npos)
        << opset;
  }
  OnnxModelBuilder ln(13);
  ln.input("x", {1, 4}).output("y").floats("s", {4}, {1, 1, 1, 1});
  ln.node("LayerNormalization", {"x", "s"}, {"y"}, "ln");
  EXPECT_NE(
      import_error(ln).find(
          "node 'ln' (LayerNormalization, opset 13): op LayerNormalization is not in opset 13 (ONNX has it since opset 17)"),
      std::string::npos)
      << import_error(ln);

  OnnxModelBuilder custom(13);
  custom.input("x", {1, 4}).output("y");
  custom.node("FastGelu", {"x"}, {"y"}, "g").set_domain("com.microsoft");
  EXPECT_NE(import_error(custom).find("domain 'com.microsoft' is not supported"), std::string::npos);

  // Softmax of opset 11 on a middle axis: softmax over the input coerced to 2-D at the axis.
  OnnxModelBuilder softmax(11);
  softmax.input("x", {2, 3, 4}).output("y");
  OnnxModelBuilder::attr(softmax.node("Softmax", {"x"}, {"y"}, "sm"), "axis", int64_t{1});
  EXPECT_EQ(import_error(softmax), "");
}

TEST(OnnxImport, DtypesAndDynamicShapesAreRefusedByName) {
  OnnxModelBuilder dbl(13);
  dbl.input("x", {1, 4}, onnx::TensorProto::FLOAT16).output("y");
  dbl.node("Relu", {"x"}, {"y"});
  EXPECT_NE(import_error(dbl).find(
                "input 'x': dtype FLOAT16 is not supported (float32, int64, int32, bool, float64, int8, uint8)"),
            std::string::npos)
      << import_error(dbl);

  OnnxModelBuilder seq(13);
  seq.input("x", {-1, -1, 8}).output("y");
  seq.node("Relu", {"x"}, {"y"});
  const std::string e = import_error(seq);
  EXPECT_NE(e.find("input 'x' [N,S,8]: extent 1 ('S') is symbolic; bind it with --input-shape x=1,S,8"),
            std::string::npos)
      << e;

  OnnxModelBuilder reshape(13);
  reshape.input("x", {1, 8}).input("shape", {2}, onnx::TensorProto::INT64).output("y");
  reshape.node("Reshape", {"x", "shape"}, {"y"}, "rs");
  EXPECT_NE(import_error(reshape).find("node 'rs' (Reshape): the target shape (input 1) must be a constant"),
            std::string::npos)
      << import_error(reshape);

  OnnxModelBuilder cast(13);
  cast.input("x", {1, 4}).output("y");
  OnnxModelBuilder::attr(cast.node("Cast", {"x"}, {"y"}, "c"), "to", int64_t{onnx::TensorProto::FLOAT16});
  EXPECT_NE(import_error(cast).find("node 'c' (Cast, opset 13): attribute 'to' = FLOAT16 is not supported"),
            std::string::npos);
}

TEST(OnnxImport, BrokenGraphsAreNamedErrors) {
  OnnxModelBuilder undefined(13);
  undefined.input("x", {1, 4}).output("y");
  undefined.node("Add", {"x", "ghost"}, {"y"}, "add");
  EXPECT_NE(import_error(undefined).find("node 'add' (Add) reads 'ghost', which no node, input or initializer defines"),
            std::string::npos)
      << import_error(undefined);

  OnnxModelBuilder cycle(13);
  cycle.input("x", {1, 4}).output("b");
  cycle.node("Add", {"x", "b"}, {"a"}, "first");
  cycle.node("Relu", {"a"}, {"b"}, "second");
  EXPECT_NE(import_error(cycle).find("is on a cycle"), std::string::npos) << import_error(cycle);

  OnnxModelBuilder twice(13);
  twice.input("x", {1, 4}).output("y");
  twice.node("Relu", {"x"}, {"y"}, "one");
  twice.node("Relu", {"x"}, {"y"}, "two");
  EXPECT_NE(import_error(twice).find("node 'two' (Relu, opset 13): output 'y' is written twice"), std::string::npos);

  OnnxModelBuilder mismatch(13);
  mismatch.input("a", {2, 3}).input("b", {4, 5}).output("y");
  mismatch.node("MatMul", {"a", "b"}, {"y"}, "mm");
  EXPECT_NE(import_error(mismatch).find("node 'mm' (MatMul): inner extents differ"), std::string::npos)
      << import_error(mismatch);

  OnnxModelBuilder short_data(13);
  short_data.input("x", {1, 4}).output("y").floats("c", {4}, {1, 2, 3});
  short_data.node("Add", {"x", "c"}, {"y"});
  EXPECT_NE(import_error(short_data).find("initializer 'c': 3 values for shape [4]"), std::string::npos)
      << import_error(short_data);
}

// Every prefix of a valid model, and random byte changes to it, import or fail with a CompileError.
TEST(OnnxImport, TruncatedAndGarbageFilesAreErrorsNotCrashes) {
  OnnxModelBuilder b(13);
  b.input("x", {-1, 2, 6, 6})
      .output("y")
      .floats("w", {4, 2, 3, 3}, std::vector<float>(72, 0.5f))
      .floats("bias", {4}, {1, 2, 3, 4});
  b.ints("shape", {2}, {0, -1});
  auto& conv = b.node("Conv", {"x", "w", "bias"}, {"c"});
  OnnxModelBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"});
  b.node("Reshape", {"r", "shape"}, {"y"});
  const std::string good = b.bytes();
  ASSERT_NO_THROW(import_onnx_bytes(good, "good.onnx"));

  int refused = 0;
  for (size_t len = 0; len < good.size(); ++len) {
    try {
      import_onnx_bytes(good.substr(0, len), "truncated.onnx");
    } catch (const CompileError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, static_cast<int>(good.size()) * 9 / 10);

  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bad = good;
    for (int flips = 0; flips < 1 + trial % 4; ++flips) bad[rng() % bad.size()] = static_cast<char>(rng());
    try {
      import_onnx_bytes(bad, "mutated.onnx");
    } catch (const CompileError&) {
    }
  }
  for (int trial = 0; trial < 200; ++trial) {
    std::string garbage(1 + rng() % 4096, '\0');
    for (auto& c : garbage) c = static_cast<char>(rng());
    EXPECT_FALSE(error_of([&] { import_onnx_bytes(garbage, "garbage.onnx"); }).empty());
  }
  EXPECT_NE(error_of([&] { import_onnx_bytes("", "empty.onnx"); }).find("empty.onnx: not an ONNX model"),
            std::string::npos);
  EXPECT_NE(error_of([] { import_onnx_file("/nonexistent/m.onnx"); }).find("/nonexistent/m.onnx: cannot open"),
            std::string::npos);

  // A truncated real model: the weights end early.
  std::ifstream in(model_path("mobilenetv2"), std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(whole.size(), 1000u);
  for (size_t len : {size_t{1000}, whole.size() / 2, whole.size() - 1}) {
    EXPECT_FALSE(error_of([&] { import_onnx_bytes(whole.substr(0, len), "mobilenetv2.onnx"); }).empty()) << len;
  }
}

}  // namespace
}  // namespace tf::graph

// The dense epilogues a transformer's exporter writes as separate nodes: GELU (erf form and tanh
// approximation, in the spellings exporters use) and the residual Add fuse into the dense before
// them, and constant weights are packed into panels at build time. Each model is checked twice:
// the planned graph's nodes, and the built model's outputs against the test-only evaluator running
// the imported (unfused) graph on the same random inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/onnx_import.h"
#include "graph/passes/passes.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "tests/built_vs_evaluator.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;
using testing::random_tensor;

constexpr int64_t kRows = 6, kIn = 40, kOut = 72;  // 72 columns: two full panels and a ragged one

std::vector<float> random_floats(int64_t n, uint32_t seed, float lo = -1, float hi = 1) {
  return random_tensor({n}, seed, lo, hi).f32;
}

// x [1, 6, 40] -> MatMul w [40, 72] -> Add bias -> "d": what every model below starts with.
OnnxModelBuilder dense_start() {
  OnnxModelBuilder b(13);
  b.input("x", {1, kRows, kIn});
  b.floats("w", {kIn, kOut}, random_floats(kIn * kOut, 11)).floats("bias", {kOut}, random_floats(kOut, 12));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Add", {"m", "bias"}, {"d"});
  return b;
}

void scalar(OnnxModelBuilder& b, const std::string& name, float v) { b.floats(name, {}, {v}); }

// BERT's export: d * 0.5 * ... as Mul(Mul(d, Add(Erf(Div(d, sqrt2)), 1)), 0.5).
OnnxModelBuilder gelu_erf_as_bert_writes_it() {
  OnnxModelBuilder b = dense_start();
  scalar(b, "sqrt2", std::sqrt(2.0f)), scalar(b, "one", 1), scalar(b, "half", 0.5f);
  b.node("Div", {"d", "sqrt2"}, {"s"});
  b.node("Erf", {"s"}, {"e"});
  b.node("Add", {"e", "one"}, {"e1"});
  b.node("Mul", {"d", "e1"}, {"p"});
  b.node("Mul", {"p", "half"}, {"y"});
  b.output("y");
  return b;
}

// Another order: Mul(Mul(0.5, d), Add(1, Erf(Mul(d, 1/sqrt2)))).
OnnxModelBuilder gelu_erf_in_another_order() {
  OnnxModelBuilder b = dense_start();
  scalar(b, "inv_sqrt2", 0.70710678f), scalar(b, "one", 1), scalar(b, "half", 0.5f);
  b.node("Mul", {"half", "d"}, {"h"});
  b.node("Mul", {"d", "inv_sqrt2"}, {"s"});
  b.node("Erf", {"s"}, {"e"});
  b.node("Add", {"one", "e"}, {"e1"});
  b.node("Mul", {"h", "e1"}, {"y"});
  b.output("y");
  return b;
}

// The tanh approximation (GPT-2's): 0.5 * d * (1 + tanh(sqrt(2/pi) * (d + 0.044715 * d^3))).
OnnxModelBuilder gelu_tanh() {
  OnnxModelBuilder b = dense_start();
  scalar(b, "three", 3), scalar(b, "c", 0.044715f), scalar(b, "k", 0.7978845608f), scalar(b, "one", 1),
      scalar(b, "half", 0.5f);
  b.node("Pow", {"d", "three"}, {"cube"});
  b.node("Mul", {"cube", "c"}, {"cc"});
  b.node("Add", {"d", "cc"}, {"in"});
  b.node("Mul", {"in", "k"}, {"ink"});
  b.node("Tanh", {"ink"}, {"t"});
  b.node("Add", {"t", "one"}, {"t1"});
  b.node("Mul", {"half", "d"}, {"h"});
  b.node("Mul", {"h", "t1"}, {"y"});
  b.output("y");
  return b;
}

std::map<std::string, int> planned_ops(const OnnxModelBuilder& b, bool packed) {
  return count_ops(plan_graph(import_onnx_bytes(b.bytes(), "test.onnx"), PlanOptions{packed}));
}

// The built model (fused, packed, default configs) against the evaluator on the imported graph.
double built_vs_unfused(const OnnxModelBuilder& b) {
  // Wide enough that GELU's curved part and both tails are all reached.
  return testing::built_vs_evaluated(b, testing::random_inputs(import_onnx_bytes(b.bytes(), "test.onnx"), 5, -3, 3));
}

TEST(DenseFusion, GeluAsBertExportsItIsTheDensesEpilogue) {
  const auto b = gelu_erf_as_bert_writes_it();
  EXPECT_EQ(planned_ops(b, false), (std::map<std::string, int>{{"dense_bias_gelu", 1}}));
  EXPECT_EQ(planned_ops(b, true), (std::map<std::string, int>{{"dense_packed_bias_gelu", 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

TEST(DenseFusion, GeluWrittenInAnotherOrderIsRecognisedByWhatItComputes) {
  const auto b = gelu_erf_in_another_order();
  EXPECT_EQ(planned_ops(b, false), (std::map<std::string, int>{{"dense_bias_gelu", 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

TEST(DenseFusion, TheTanhApproximationIsItsOwnEpilogue) {
  const auto b = gelu_tanh();
  EXPECT_EQ(planned_ops(b, false), (std::map<std::string, int>{{"dense_bias_gelu_tanh", 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

TEST(DenseFusion, AChainThatIsNotGeluStaysElementwise) {
  // 0.5 * d * (1 + erf(d / 2)): GELU's spelling with the wrong scale.
  OnnxModelBuilder b = dense_start();
  scalar(b, "two", 2), scalar(b, "one", 1), scalar(b, "half", 0.5f);
  b.node("Div", {"d", "two"}, {"s"});
  b.node("Erf", {"s"}, {"e"});
  b.node("Add", {"e", "one"}, {"e1"});
  b.node("Mul", {"d", "e1"}, {"p"});
  b.node("Mul", {"p", "half"}, {"y"});
  b.output("y");
  EXPECT_EQ(planned_ops(b, false), (std::map<std::string, int>{{"dense_bias", 1}, {kFusedElementwise, 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

TEST(DenseFusion, ADenseOutputReadElsewhereKeepsItsGeluApart) {
  OnnxModelBuilder b = gelu_erf_as_bert_writes_it();
  b.output("d");
  EXPECT_EQ(planned_ops(b, false), (std::map<std::string, int>{{"dense_bias", 1}, {kFusedElementwise, 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

TEST(DenseFusion, TheResidualAddIsTheDensesEpilogue) {
  OnnxModelBuilder b = dense_start();
  b.input("skip", {1, kRows, kOut});
  b.node("Add", {"skip", "d"}, {"y"});
  b.output("y");
  EXPECT_EQ(planned_ops(b, false), (std::map<std::string, int>{{"dense_bias_add", 1}}));
  EXPECT_EQ(planned_ops(b, true), (std::map<std::string, int>{{"dense_packed_bias_add", 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

TEST(DenseFusion, AnAddThatBroadcastsIsNotAResidual) {
  OnnxModelBuilder b = dense_start();
  b.input("row", {1, 1, kOut});
  b.node("Add", {"d", "row"}, {"y"});
  b.output("y");
  EXPECT_EQ(planned_ops(b, false), (std::map<std::string, int>{{"dense_bias", 1}, {"Add", 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

TEST(DenseFusion, PackedWeightsArePanelsOfTheConstantAndTheKernelsWorkloadSaysSo) {
  const Graph planned = plan_graph(import_onnx_bytes(gelu_erf_as_bert_writes_it().bytes(), "test.onnx"));
  ASSERT_EQ(planned.nodes.size(), 1u);
  const Node& n = planned.nodes[0];
  const auto k = node_kernel(planned, n);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->workload.str(), "dense_packed_bias_gelu[6,72,40,32]");
  const Tensor* panels = planned.constant(n.inputs[1]);
  ASSERT_TRUE(panels);
  EXPECT_EQ(panels->shape, (Shape{3, kIn, 32}));
  const std::vector<float> w = random_floats(kIn * kOut, 11);
  // Element (k, n) of the weight at panel n / 32, row k, lane n % 32; the third panel's lanes
  // past column 72 are zero.
  for (int64_t kk : {int64_t{0}, int64_t{17}, kIn - 1}) {
    for (int64_t col : std::vector<int64_t>{0, 31, 32, 63, 64, kOut - 1}) {
      EXPECT_EQ(panels->f32[static_cast<size_t>(((col / 32) * kIn + kk) * 32 + col % 32)],
                w[static_cast<size_t>(kk * kOut + col)]);
    }
    EXPECT_EQ(panels->f32[static_cast<size_t>((2 * kIn + kk) * 32 + 8)], 0.0f);
  }
}

TEST(DenseFusion, ThePanelWidthIsTheTargetsTwoVectors) {
  EXPECT_EQ(dense_panel_for(codegen::parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell")), 16);
  EXPECT_EQ(dense_panel_for(codegen::parse_target("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512")), 32);
  PlanOptions o;
  o.dense_panel = 16;
  const Graph planned = plan_graph(import_onnx_bytes(gelu_erf_as_bert_writes_it().bytes(), "test.onnx"), o);
  ASSERT_EQ(planned.nodes.size(), 1u);
  const auto k = node_kernel(planned, planned.nodes[0]);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->workload.str(), "dense_packed_bias_gelu[6,72,40,16]");
  const Tensor* panels = planned.constant(planned.nodes[0].inputs[1]);
  ASSERT_TRUE(panels);
  EXPECT_EQ(panels->shape, (Shape{5, kIn, 16}));
  const std::vector<float> w = random_floats(kIn * kOut, 11);
  EXPECT_EQ(panels->f32[static_cast<size_t>((4 * kIn + 3) * 16 + 7)], w[static_cast<size_t>(3 * kOut + 71)]);
  EXPECT_EQ(panels->f32[static_cast<size_t>((4 * kIn + 3) * 16 + 8)], 0.0f);  // past column 72
}

TEST(DenseFusion, AClassifiersSingleRowRunsPackedAndAgrees) {
  OnnxModelBuilder b(13);
  b.input("x", {1, 300});
  b.floats("w", {200, 300}, random_floats(200 * 300, 21)).floats("bias", {200}, random_floats(200, 22));
  OnnxModelBuilder::attr(b.node("Gemm", {"x", "w", "bias"}, {"y"}), "transB", int64_t{1});
  b.output("y");
  EXPECT_EQ(planned_ops(b, true), (std::map<std::string, int>{{"dense_packed_bias", 1}}));
  EXPECT_LT(built_vs_unfused(b), 1e-5);
}

}  // namespace
}  // namespace tf::graph

// Attention as exporters write it (Transposes of the heads, MatMul, scale, mask, Softmax, MatMul,
// Transpose back) becomes one attention kernel; variants it cannot run stay as separate nodes.
// Each model is checked twice: the planned graph's nodes, and the built model's outputs against
// the test-only evaluator running the imported (unfused) graph on the same random inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "tests/built_vs_evaluator.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;
using testing::random_tensor;

struct Heads {
  int64_t batch = 1, rows = 11, keys = 19, heads = 3, width = 20;
};

struct Spelling {
  std::string scale_op = "Div";  // "Div", "Mul" or "" (none)
  float scale = 8.0f;
  Shape mask;  // empty: no mask
  int64_t softmax_axis = -1;
  bool scores_are_an_output = false;
};

// q [B,S,H,D], k and v [B,T,H,D] -> Transposes -> MatMul -> scale -> + mask -> Softmax -> MatMul
// -> Transpose -> "ctx" [B,S,H,D].
OnnxModelBuilder attention_model(const Heads& h, const Spelling& s) {
  OnnxModelBuilder b(13);
  b.input("q", {h.batch, h.rows, h.heads, h.width});
  b.input("k", {h.batch, h.keys, h.heads, h.width});
  b.input("v", {h.batch, h.keys, h.heads, h.width});
  OnnxModelBuilder::attr(b.node("Transpose", {"q"}, {"qt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  OnnxModelBuilder::attr(b.node("Transpose", {"k"}, {"kt"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  OnnxModelBuilder::attr(b.node("Transpose", {"v"}, {"vt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  b.node("MatMul", {"qt", "kt"}, {"qk"});
  std::string logits = "qk";
  if (!s.scale_op.empty()) {
    b.floats("c", {}, {s.scale});
    b.node(s.scale_op, {"qk", "c"}, {"scaled"});
    logits = "scaled";
  }
  if (!s.mask.empty()) {
    b.input("mask", s.mask);
    b.node("Add", {logits, "mask"}, {"masked"});
    logits = "masked";
  }
  OnnxModelBuilder::attr(b.node("Softmax", {logits}, {"p"}), "axis", s.softmax_axis);
  b.node("MatMul", {"p", "vt"}, {"pv"});
  OnnxModelBuilder::attr(b.node("Transpose", {"pv"}, {"ctx"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  b.output("ctx");
  if (s.scores_are_an_output) b.output(logits);
  return b;
}

std::map<std::string, int> planned_ops(const OnnxModelBuilder& b) {
  return count_ops(plan_graph(import_onnx_bytes(b.bytes(), "test.onnx"), PlanOptions{}));
}

// The built model (default configs) against the evaluator on the imported graph. The mask holds
// BERT's -10000 for a few keys, so their probabilities underflow to zero.
double built_vs_unfused(const OnnxModelBuilder& b) {
  testing::Values inputs = testing::random_inputs(import_onnx_bytes(b.bytes(), "test.onnx"), 7, -2, 2);
  if (auto mask = inputs.find("mask"); mask != inputs.end()) {
    for (size_t i = 0; i < mask->second.f32.size(); i += 3) mask->second.f32[i] = -10000.0f;
  }
  return testing::built_vs_evaluated(b, inputs);
}

TEST(AttentionFusion, BertsSpellingIsOneMaskedKernel) {
  Spelling bert;
  bert.mask = {1, 1, 1, 19};
  const auto b = attention_model(Heads{}, bert);
  const auto ops = planned_ops(b);
  EXPECT_EQ(ops.at("attention_masked"), 1);
  EXPECT_EQ(ops.count("Transpose"), 0u);
  EXPECT_EQ(ops.count("Softmax"), 0u);
  EXPECT_EQ(ops.count("dense"), 0u);
  EXPECT_LT(built_vs_unfused(b), 1e-4);
}

TEST(AttentionFusion, AMultipliedScaleAndNoMaskIsThePlainKernel) {
  Spelling s;
  s.scale_op = "Mul";
  s.scale = 0.25f;
  const auto b = attention_model(Heads{}, s);
  EXPECT_EQ(planned_ops(b).at("attention"), 1);
  EXPECT_LT(built_vs_unfused(b), 1e-4);
}

TEST(AttentionFusion, UnscaledScoresAndABatchOfTwoWithAMaskEach) {
  Heads h;
  h.batch = 2;
  Spelling s;
  s.scale_op = "";
  s.mask = {2, 1, 1, 19};
  const auto b = attention_model(h, s);
  EXPECT_EQ(planned_ops(b).at("attention_masked"), 1);
  EXPECT_LT(built_vs_unfused(b), 1e-4);
}

TEST(AttentionFusion, TheKernelIsATunableTaskWithTheScaleInItsWorkload) {
  Spelling bert;
  bert.mask = {1, 1, 1, 19};
  const Graph planned =
      plan_graph(import_onnx_bytes(attention_model(Heads{}, bert).bytes(), "test.onnx"), PlanOptions{});
  const auto tasks = tunable_tasks(planned);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].workload.op, "attention_masked");
  EXPECT_EQ(tasks[0].workload.shape, (std::vector<int64_t>{1, 11, 19, 3, 20, 125000000}));
}

// Masks that vary per query row or per head, a softmax over another axis, or scores a graph output
// reads: the kernel cannot run them, so the nodes stay (and still compute the same values).
TEST(AttentionFusion, VariantsTheKernelCannotRunStayApart) {
  Spelling per_row;
  per_row.mask = {1, 1, 11, 19};
  Spelling per_head;
  per_head.mask = {1, 3, 1, 19};
  Spelling other_axis;
  other_axis.softmax_axis = 2;
  Spelling shared;
  shared.scores_are_an_output = true;
  Heads square;
  square.keys = square.rows;  // a softmax over the query axis must still have the shapes line up
  for (const auto& [what, heads, s] :
       {std::tuple{"a mask per query row", Heads{}, per_row}, std::tuple{"a mask per head", Heads{}, per_head},
        std::tuple{"softmax over the query axis", square, other_axis},
        std::tuple{"scores read by a graph output", Heads{}, shared}}) {
    const auto b = attention_model(heads, s);
    const auto ops = planned_ops(b);
    EXPECT_EQ(ops.count("attention") + ops.count("attention_masked"), 0u) << what;
    EXPECT_EQ(ops.count("Softmax"), 1u) << what;
    EXPECT_LT(built_vs_unfused(b), 1e-4) << what;
  }
}

}  // namespace
}  // namespace tf::graph

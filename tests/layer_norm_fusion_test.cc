// A layer norm written out node by node, as exporters before opset 17 do, becomes one layer_norm
// kernel; spellings the kernel cannot run stay as they are. Each model is checked twice: the
// planned graph's nodes, and the built model's outputs against the test-only evaluator running the
// imported (unfused) graph.
#include <gtest/gtest.h>

#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "tests/built_vs_evaluator.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;
using testing::random_tensor;

constexpr int64_t kCols = 48;

struct Spelling {
  bool square_by_mul = false;  // Mul(d, d) instead of Pow(d, 2)
  bool eps_first = false;      // Add(eps, var)
  bool gamma = true, beta = true;
  bool gamma_is_an_input = false;
  bool centered_is_an_output = false;
  int64_t mean_axis = -1;
};

// x [2, 5, 48] -> ReduceMean -> Sub -> Pow -> ReduceMean -> Add eps -> Sqrt -> Div [-> Mul gamma]
// [-> Add beta] -> "y".
OnnxModelBuilder layer_norm_model(const Spelling& s) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 5, kCols});
  auto mean = [&](const std::string& in, const std::string& out, int64_t axis) {
    auto& n = b.node("ReduceMean", {in}, {out});
    OnnxModelBuilder::attr(n, "axes", std::vector<int64_t>{axis});
    OnnxModelBuilder::attr(n, "keepdims", int64_t{1});
  };
  mean("x", "mean", s.mean_axis);
  b.node("Sub", {"x", "mean"}, {"d"});
  if (s.square_by_mul) {
    b.node("Mul", {"d", "d"}, {"sq"});
  } else {
    b.floats("two", {}, {2.0f});
    b.node("Pow", {"d", "two"}, {"sq"});
  }
  mean("sq", "var", -1);
  b.floats("eps", {}, {1e-12f});
  b.node("Add", s.eps_first ? std::vector<std::string>{"eps", "var"} : std::vector<std::string>{"var", "eps"},
         {"var_eps"});
  b.node("Sqrt", {"var_eps"}, {"std"});
  b.node("Div", {"d", "std"}, {"n"});
  std::string y = "n";
  if (s.gamma) {
    if (s.gamma_is_an_input)
      b.input("gamma", {kCols});
    else
      b.floats("gamma", {kCols}, random_tensor({kCols}, 3, 0.5, 1.5).f32);
    b.node("Mul", {y, "gamma"}, {"scaled"});
    y = "scaled";
  }
  if (s.beta) {
    b.floats("beta", {1, kCols}, random_tensor({1, kCols}, 4, -0.5, 0.5).f32);
    b.node("Add", {"beta", y}, {"shifted"});
    y = "shifted";
  }
  b.node("Relu", {y}, {"out"});  // a reader after it, so the fused node's output is not the graph's
  b.output("out");
  if (s.centered_is_an_output) b.output("d");
  return b;
}

std::map<std::string, int> planned_ops(const OnnxModelBuilder& b) {
  return count_ops(plan_graph(import_onnx_bytes(b.bytes(), "test.onnx"), PlanOptions{}));
}

double built_vs_unfused(const OnnxModelBuilder& b) {
  return testing::built_vs_evaluated(b, testing::random_inputs(import_onnx_bytes(b.bytes(), "test.onnx"), 9, -3, 5));
}

TEST(LayerNormFusion, TheWrittenOutFormIsOneKernel) {
  for (const auto& [what, s] :
       {std::pair{"Pow, gamma and beta", Spelling{}}, std::pair{"Mul(d, d), epsilon first", Spelling{true, true}},
        std::pair{"no beta", Spelling{false, false, true, false}},
        std::pair{"neither gamma nor beta", Spelling{false, false, false, false}}}) {
    const auto b = layer_norm_model(s);
    const auto ops = planned_ops(b);
    EXPECT_EQ(ops.count("LayerNormalization"), 1u) << what;
    EXPECT_EQ(ops.count("ReduceMean"), 0u) << what;
    EXPECT_LT(built_vs_unfused(b), 1e-4) << what;
  }
}

// A computed gamma, the centered value read by a graph output, the mean over another axis: the
// kernel cannot run them (or would lose a value), so the nodes stay and still agree.
TEST(LayerNormFusion, SpellingsTheKernelCannotRunStayApart) {
  Spelling computed_gamma;
  computed_gamma.gamma_is_an_input = true;
  Spelling shared;
  shared.centered_is_an_output = true;
  Spelling other_axis;
  other_axis.mean_axis = 1;
  for (const auto& [what, s] :
       {std::pair{"a computed gamma", computed_gamma}, std::pair{"the centered value is an output", shared},
        std::pair{"the mean over axis 1", other_axis}}) {
    const auto b = layer_norm_model(s);
    const auto ops = planned_ops(b);
    if (what == std::string("a computed gamma")) {
      // Normalization fuses; the Mul by the computed gamma stays a node of its own.
      EXPECT_EQ(ops.count("LayerNormalization"), 1u) << what;
    } else {
      EXPECT_EQ(ops.count("LayerNormalization"), 0u) << what;
    }
    EXPECT_LT(built_vs_unfused(b), 1e-4) << what;
  }
}

}  // namespace
}  // namespace tf::graph

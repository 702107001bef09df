// A node with alternative kernels (a blocked 3x3 stride-1 conv: direct or Winograd F(2x2), F(4x4)):
// the model job gets one task per alternative in one group, and the build runs the alternative the
// database measured fastest, with its weight transformed at build time, computing what the graph
// says.
#include <gtest/gtest.h>

#include "compiler/ops/registry.h"
#include "graph/build.h"
#include "graph/kernel_alternatives.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "runtime/model/executor.h"
#include "tests/graph_evaluator.h"
#include "tests/onnx_model_builder.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;
using testing::random_tensor;

// x [1,16,16,16] -> 3x3 conv (pad 1) + bias + relu -> 1x1 conv (no alternative) -> y.
Graph two_convs() {
  OnnxModelBuilder b(13);
  b.input("x", {1, 16, 16, 16}).output("y");
  b.floats("w1", {24, 16, 3, 3}, random_tensor({24, 16, 3, 3}, 1).f32).floats("b1", {24}, random_tensor({24}, 2).f32);
  b.floats("w2", {8, 24, 1, 1}, random_tensor({8, 24, 1, 1}, 3).f32);
  OnnxModelBuilder::attr(b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv3x3"), "pads",
                         std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"}, "relu");
  b.node("Conv", {"r1", "w2"}, {"y"}, "conv1x1");
  return import_onnx_bytes(b.bytes(), "two_convs");
}

TEST(KernelAlternatives, AThreeByThreeConvHasWinogradFormsOneByOneNone) {
  const auto tasks = tunable_tasks(plan_graph(two_convs()));
  std::map<std::string, int> groups;
  for (const auto& t : tasks) groups[t.workload.op] = t.group;
  ASSERT_EQ(tasks.size(), 4u);  // direct + F(2x2) + F(4x4) for the 3x3 conv; the 1x1 conv
  EXPECT_GE(groups.at("conv2d_nchwc_bias_relu"), 0);
  EXPECT_EQ(groups.at("conv2d_winograd_nchwc_bias_relu"), groups.at("conv2d_nchwc_bias_relu"));
  EXPECT_EQ(groups.at("conv2d_nchwc"), -1);
  double share = 0;
  for (const auto& t : tasks) share += t.group < 0 || t.workload.op == "conv2d_nchwc_bias_relu" ? t.share : 0;
  EXPECT_NEAR(share, 1.0, 1e-9) << "each node's work is counted once";
  // Every member of a family names the same family, the direct one first.
  const auto family = kernel_alternatives(tasks[0].workload);
  ASSERT_EQ(family.size(), 3u);
  EXPECT_EQ(family[0].op, "conv2d_nchwc_bias_relu");
  EXPECT_EQ(kernel_alternatives(family[2]).size(), 3u);
  EXPECT_EQ(kernel_alternatives(family[2])[0].str(), family[0].str());
}

TEST(KernelAlternatives, TheBuildRunsTheFastestMeasuredAndComputesTheSame) {
  const Graph imported = two_convs();
  std::map<std::string, Tensor> inputs = {{"x", random_tensor({1, 16, 16, 16}, 7)}};
  const auto want = testing::Evaluator(imported).run(inputs);
  for (int64_t m : {0, 2, 4}) {  // 0: nothing measured: on 16x16 outputs F(2x2) by default
    PlanOptions plan;
    plan.measured_seconds = [m](const ops::Workload& w) -> std::optional<double> {
      if (m == 0) return std::nullopt;
      if (w.op.find("winograd") == std::string::npos) return 2e-3;
      return w.shape.back() == m ? 1e-3 : 3e-3;
    };
    const Graph planned = plan_graph(imported, plan);
    int64_t ran = 0;
    for (const Node& n : planned.nodes) {
      if (n.op == "conv2d_winograd_nchwc_bias_relu") ran = n.attr_ints("workload_shape", {}).back();
    }
    EXPECT_EQ(ran, m == 0 ? 2 : m) << "measured fastest: m " << m;
    BuildOptions options;
    options.target = codegen::host_target();
    runtime::model::Executor exec(build_model(planned, options));
    const auto got = exec.run_floats({{"x", inputs.at("x").f32}});
    const Tensor& y = want.at("y");
    EXPECT_LT(testing::max_relative_difference(Tensor::floats(y.shape, got.at("y")), y), 1e-4) << "m " << m;
  }
}

TEST(KernelAlternatives, DirectWinsWhereMeasuredFastestAndSmallImagesHaveNoWinograd) {
  const ops::Workload big{"conv2d_nchwc_bias",
                          ops::parse_shape("conv2d_nchwc_bias", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1")};
  const auto family = kernel_alternatives(big);
  ASSERT_EQ(family.size(), 3u);
  EXPECT_EQ(family[default_alternative(family)].shape.back(), 4) << "F(4x4) on 56x56 by default";
  const auto direct_fastest = [&](const ops::Workload& w) -> std::optional<double> {
    return w.op == big.op ? 1e-3 : 2e-3;
  };
  EXPECT_EQ(choose_alternative(family, direct_fastest), 0u);
  const ops::Workload small{"conv2d_nchwc_bias",
                            ops::parse_shape("conv2d_nchwc_bias", "c=512,h=7,w=7,k=512,r=3,s=3,pad=1")};
  EXPECT_EQ(kernel_alternatives(small).size(), 1u);
  const ops::Workload strided{"conv2d_nchwc_bias",
                              ops::parse_shape("conv2d_nchwc_bias", "c=64,h=56,w=56,k=64,r=3,s=3,stride=2,pad=1")};
  EXPECT_EQ(kernel_alternatives(strided).size(), 1u);
}

// With AVX2's 16 vector registers a middling image takes F(4x4) by default, as large ones do.
TEST(KernelAlternatives, SixteenRegistersTakeFourByFourTilesOnMiddlingImages) {
  const auto middling = kernel_alternatives(
      {"conv2d_nchwc_bias", ops::parse_shape("conv2d_nchwc_bias", "c=256,h=14,w=14,k=256,r=3,s=3,pad=1")});
  ASSERT_GE(middling.size(), 2u);
  EXPECT_EQ(middling[default_alternative(middling, 32)].shape.back(), 2) << "F(2x2) with 32 registers";
  EXPECT_EQ(middling[default_alternative(middling, 16)].shape.back(), 4) << "F(4x4) with 16";
  const auto big = kernel_alternatives(
      {"conv2d_nchwc_bias", ops::parse_shape("conv2d_nchwc_bias", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1")});
  EXPECT_EQ(big[default_alternative(big, 16)].shape.back(), 4);
}

}  // namespace
}  // namespace tf::graph

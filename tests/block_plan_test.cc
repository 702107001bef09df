// Layouts chosen for the whole graph: the min-sum solver, the plan it makes from measured kernel and
// conversion times (the cheaper plan, not each conv's fastest kernel), and that built models with
// the chosen blocks compute what the graph says.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/build.h"
#include "graph/kernel_alternatives.h"
#include "graph/layout_solver.h"
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

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(LayoutSolver, AChainTakesTheCheapestPathNotEachLinksCheapestValue) {
  ChoiceProblem p;
  const int a = p.add_variable(2), b = p.add_variable(2), c = p.add_variable(2);
  p.add_cost({{a}, {0, 1}});           // a prefers 0
  p.add_cost({{a, b}, {5, 0, 5, 0}});  // b = 1 is cheap either way
  p.add_cost({{b, c}, {0, 9, 9, 2}});  // b = 1 forces c = 1 at 2
  p.add_cost({{c}, {0, 0}});
  const auto s = p.solve();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->values, (std::vector<int>{0, 1, 1}));
  EXPECT_DOUBLE_EQ(s->cost, 2);
}

TEST(LayoutSolver, AResidualTriangleIsSolvedExactly) {
  // x -> y -> z with a shortcut x -> z: every pair prefers equal values, unaries pull apart.
  ChoiceProblem p;
  const int x = p.add_variable(3), y = p.add_variable(3), z = p.add_variable(3);
  const auto equal = [](int u, int v) {
    CostTable t{{u, v}, {}};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) t.cost.push_back(i == j ? 0 : 4);
    }
    return t;
  };
  p.add_cost(equal(x, y));
  p.add_cost(equal(y, z));
  p.add_cost(equal(x, z));
  p.add_cost({{x}, {3, 0, 3}});
  p.add_cost({{y}, {0, 3, 3}});
  p.add_cost({{z}, {kInf, 2, 0}});
  const auto s = p.solve();
  ASSERT_TRUE(s);
  // All equal at 1 costs 3 + 2 = 5; any split pays at least two mismatches (8).
  EXPECT_EQ(s->values, (std::vector<int>{1, 1, 1}));
  EXPECT_DOUBLE_EQ(s->cost, 5);
}

TEST(LayoutSolver, RefusesWhatItCannotSolveExactlyAndBadTables) {
  ChoiceProblem p;
  std::vector<int> all;
  for (int i = 0; i < 5; ++i) all.push_back(p.add_variable(2));
  p.add_cost({all, std::vector<double>(32, 1.0)});
  EXPECT_FALSE(p.solve(3)) << "eliminating the first leaves a table over 4";
  EXPECT_TRUE(p.solve(4));
  EXPECT_THROW(p.add_cost({{0, 1}, {1, 2, 3}}), CompileError);
  EXPECT_THROW(p.add_cost({{7}, {1, 2}}), CompileError);
  EXPECT_THROW(p.add_variable(0), CompileError);
}

TEST(BlockAlternatives, CandidateBlocksFollowTheChannels) {
  EXPECT_EQ(channel_blocks(64), (std::vector<int64_t>{8, 16, 32}));
  EXPECT_EQ(channel_blocks(24), (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(channel_blocks(3), (std::vector<int64_t>{16}));
  const ops::Workload mid{"conv2d_nchwc_bias", ops::parse_shape("conv2d_nchwc_bias", "c=64,h=28,w=28,k=32,r=1,s=1")};
  const auto blocks = block_alternatives(mid);
  ASSERT_EQ(blocks.size(), 3u);
  for (const auto& w : blocks) EXPECT_EQ(w.shape[w.shape.size() - 2], w.shape.back()) << w.str();
  const ops::Workload first{"conv2d_nchwc_bias_relu",
                            ops::parse_shape("conv2d_nchwc_bias_relu", "c=3,h=32,w=32,k=64,r=3,s=3,pad=1,ib=3")};
  const auto firsts = block_alternatives(first);
  ASSERT_EQ(firsts.size(), 3u);
  for (const auto& w : firsts)
    EXPECT_EQ(w.shape[w.shape.size() - 2], 3) << "a plain 3-channel input stays blocked by 3";
  // Winograd members name the same family; every block has its algorithms.
  const ops::Workload big{"conv2d_nchwc_bias",
                          ops::parse_shape("conv2d_nchwc_bias", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1")};
  const auto family = kernel_alternatives_with_blocks(big);
  ASSERT_EQ(family.size(), 9u);
  EXPECT_EQ(kernel_alternatives_with_blocks(family[5]).size(), 9u);
  EXPECT_EQ(kernel_alternatives_with_blocks(family[5])[0].str(), family[0].str());
}

// x [1,32,12,12] -> c1: 1x1 32->32 + bias + relu -> c2: 3x3 pad 1 32->32 + bias + the residual c1
// + relu -> c3: 1x1 32->16 + bias -> y. c3's 16 output channels allow blocks 8 and 16, not 32.
Graph residual_chain() {
  OnnxModelBuilder b(13);
  b.input("x", {1, 32, 12, 12}).output("y");
  b.floats("w1", {32, 32, 1, 1}, random_tensor({32, 32, 1, 1}, 1).f32).floats("b1", {32}, random_tensor({32}, 2).f32);
  b.floats("w2", {32, 32, 3, 3}, random_tensor({32, 32, 3, 3}, 3).f32).floats("b2", {32}, random_tensor({32}, 4).f32);
  b.floats("w3", {16, 32, 1, 1}, random_tensor({16, 32, 1, 1}, 5).f32).floats("b3", {16}, random_tensor({16}, 6).f32);
  b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "c1");
  b.node("Relu", {"c1"}, {"r1"}, "relu1");
  OnnxModelBuilder::attr(b.node("Conv", {"r1", "w2", "b2"}, {"c2"}, "c2"), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Add", {"c2", "r1"}, {"s2"}, "add");
  b.node("Relu", {"s2"}, {"r2"}, "relu2");
  b.node("Conv", {"r2", "w3", "b3"}, {"y"}, "c3");
  return import_onnx_bytes(b.bytes(), "residual_chain");
}

// Fake database: every conv kernel at `fast` with blocks of 32, else 1e-4 s; conversions at `convert`.
PlanOptions measured(double fast, double convert) {
  PlanOptions o;
  o.measured_seconds = [fast, convert](const ops::Workload& w) -> std::optional<double> {
    if (w.op.rfind("layout_", 0) == 0) return convert;
    if (w.op.find("winograd") != std::string::npos) return std::nullopt;
    return w.shape.back() == 32 ? fast : 1e-4;
  };
  return o;
}

struct Planned {
  std::map<std::string, std::pair<int64_t, int64_t>> blocks;  // conv node -> (ib, ob)
  int conversions = 0;
};

Planned blocks_of(const Graph& planned) {
  Planned p;
  for (const Node& n : planned.nodes) {
    if (n.op.rfind("conv2d_nchwc", 0) == 0) {
      const auto s = n.attr_ints("workload_shape", {});
      p.blocks[n.name] = {s[s.size() - 2], s.back()};
    }
    if (n.op.rfind("layout_", 0) == 0) ++p.conversions;
  }
  return p;
}

void expect_computes_the_graph(const Graph& imported, const Graph& planned) {
  std::map<std::string, Tensor> inputs = {{"x", random_tensor({1, 32, 12, 12}, 9)}};
  const auto want = testing::Evaluator(imported).run(inputs);
  BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor exec(build_model(planned, options));
  const auto got = exec.run_floats({{"x", inputs.at("x").f32}});
  const Tensor& y = want.at("y");
  EXPECT_LT(testing::max_relative_difference(Tensor::floats(y.shape, got.at("y")), y), 1e-4);
}

TEST(BlockPlan, NothingMeasuredKeepsEachConvsOwnBlocks) {
  const Graph imported = residual_chain();
  PlanOptions none;
  none.measured_seconds = [](const ops::Workload&) -> std::optional<double> { return std::nullopt; };
  const Planned unmeasured = blocks_of(plan_graph(imported, none)), defaults = blocks_of(plan_graph(imported));
  EXPECT_EQ(unmeasured.blocks, defaults.blocks);
  EXPECT_EQ(unmeasured.conversions, defaults.conversions);
  for (const auto& [node, b] : defaults.blocks) EXPECT_EQ(b, std::make_pair(int64_t{16}, int64_t{16})) << node;
}

TEST(BlockPlan, FasterBlocksWinWhereTheirConversionsCostLessThanTheyGain) {
  const Graph imported = residual_chain();
  // Blocks of 32 save 2 x 60 us on c1 and c2; c3 cannot take 32, so the plan pays one conversion
  // into its block and the input's into 32 instead of 16 (the same cost).
  const Graph cheap = plan_graph(imported, measured(4e-5, 1e-5));
  const Planned p = blocks_of(cheap);
  EXPECT_EQ(p.blocks.at("c1"), std::make_pair(int64_t{32}, int64_t{32}));
  EXPECT_EQ(p.blocks.at("c2"), std::make_pair(int64_t{32}, int64_t{32}));
  EXPECT_EQ(p.blocks.at("c3").first, p.blocks.at("c3").second);
  EXPECT_NE(p.blocks.at("c3").first, 32);
  int reblocks = 0;
  for (const Node& n : cheap.nodes) reblocks += n.op == "layout_reblock_nchwc";
  EXPECT_EQ(reblocks, 1) << "one copy from c2's block into c3's";
  expect_computes_the_graph(imported, cheap);
  // At 200 us per conversion the same gain (120 us) does not pay for one: 16 throughout, as alone.
  const Planned dear = blocks_of(plan_graph(imported, measured(4e-5, 2e-4)));
  for (const auto& [node, b] : dear.blocks) EXPECT_EQ(b, std::make_pair(int64_t{16}, int64_t{16})) << node;
  EXPECT_EQ(dear.conversions, blocks_of(plan_graph(imported)).conversions);
}

TEST(BlockPlan, TheResidualIsReadInTheBlockItsConvWrites) {
  const Graph imported = residual_chain();
  // c1 is fastest at 8 and c2 at 32, each by a little; reading c1's output at 32 in c2 and as the
  // residual at c2's block costs more than either gain, so the two share a block.
  PlanOptions o;
  o.measured_seconds = [](const ops::Workload& w) -> std::optional<double> {
    if (w.op.rfind("layout_", 0) == 0) return 5e-5;
    if (w.op.find("winograd") != std::string::npos) return std::nullopt;
    const bool c1 = w.shape[5] == 1 && w.shape[4] == 32;  // 1x1, 32 out
    const int64_t fastest = c1 ? 8 : 32;
    return w.shape.back() == fastest ? 9e-5 : 1e-4;
  };
  const Graph planned = plan_graph(imported, o);
  const Planned p = blocks_of(planned);
  EXPECT_EQ(p.blocks.at("c1").second, p.blocks.at("c2").first);
  EXPECT_EQ(p.blocks.at("c2").first, p.blocks.at("c2").second);
  EXPECT_EQ(p.conversions, blocks_of(plan_graph(imported)).conversions) << "no conversion between the convs";
  expect_computes_the_graph(imported, planned);
}

// Real graphs (residual blocks with downsampling shortcuts, depthwise convs whose one block is
// both sides', a first layer read plainly) plan without a conversion between convs when one
// block is fastest everywhere and conversions cost what their bytes do.
TEST(BlockPlan, ResNetAndMobileNetTakeTheFastestBlockThroughout) {
  for (const std::string model : {"resnet18", "mobilenetv2"}) {
    const Graph imported = import_onnx_file(std::string(TF_MODELS_DIR) + "/" + model + ".onnx");
    const int defaults = blocks_of(plan_graph(imported)).conversions;
    for (int64_t fastest : {8, 32}) {
      PlanOptions o;
      o.measured_seconds = [fastest](const ops::Workload& w) -> std::optional<double> {
        if (w.op.rfind("layout_", 0) == 0 || w.op.find("winograd") != std::string::npos) return std::nullopt;
        return w.shape.back() == fastest ? 5e-5 : 1e-4;
      };
      const Graph planned = plan_graph(imported, o);
      int at_fastest = 0, convs = 0, conversions = 0;
      for (const Node& n : planned.nodes) {
        const bool conv = n.op.rfind("conv2d_nchwc", 0) == 0 || n.op.rfind("depthwise_nchwc", 0) == 0;
        if (conv) ++convs, at_fastest += n.attr_ints("workload_shape", {}).back() == fastest;
        if (n.op.rfind("layout_", 0) == 0) ++conversions;
      }
      EXPECT_GT(convs, 10) << model;
      // Every conv whose channels allow the block takes it (32 does not divide MobileNetV2's 24, 144...).
      if (model == "resnet18" || fastest == 8) {
        EXPECT_EQ(at_fastest, convs) << model << " block " << fastest;
        EXPECT_EQ(conversions, defaults) << model << " block " << fastest;
      } else {
        EXPECT_GT(at_fastest, 0) << model;
      }
    }
  }
}

TEST(BlockPlan, AModelJobTunesEveryBlockAsOneGroupAndMeasuresTheConversions) {
  const Graph planned = plan_graph(residual_chain());
  const auto per_conv = tunable_tasks(planned), graph_level = tunable_tasks(planned, true);
  EXPECT_EQ(per_conv.size(), 3u);
  std::map<int, int> members;
  int conversions = 0;
  for (const auto& t : graph_level) {
    if (t.workload.op.rfind("layout_", 0) == 0) {
      ++conversions;
      EXPECT_EQ(t.count, 0) << t.workload.str() << ": measured for the plan, no part of the estimate";
      continue;
    }
    EXPECT_GE(t.group, 0) << t.workload.str();
    ++members[t.group];
  }
  EXPECT_EQ(members.size(), 3u);
  for (const auto& [group, n] : members) EXPECT_GE(n, 2) << "group " << group;
  EXPECT_GT(conversions, 0);
}

}  // namespace
}  // namespace tf::graph

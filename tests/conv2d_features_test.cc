// The tuner's features see a conv2d schedule: the register tile and the reduction it streams.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/compiler.h"
#include "compiler/ops/operator.h"
#include "tuner/access_features.h"
#include "tuner/features.h"

namespace tf::tuner {
namespace {

constexpr int kPerLevel = 4 + 2 * kAccessBuffersPerLevel;

TEST(Conv2dFeatures, FiniteAndTheyTellTilesApart) {
  codegen::Target t;
  t.vector_bits = 512;
  compiler::Task task({"conv2d_bias_relu", ops::parse_shape("conv2d_bias_relu", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1")},
                      t);
  auto features = [&](const std::string& config) {
    return candidate_features(task, task.space().from_json(parse_json(config)));
  };
  const auto small = features(R"({"kb":1,"xw":16,"order":"crs","pad":"inline"})");
  const auto large = features(R"({"kb":8,"xw":32,"order":"crs","pad":"inline"})");
  ASSERT_EQ(small.size(), large.size());
  for (float f : large) EXPECT_TRUE(std::isfinite(f));
  EXPECT_NE(small, large);
  // The hottest loop's accumulators are the kb x xw tile.
  auto access = [&](const std::string& config) {
    return access_features(task.lower(task.space().from_json(parse_json(config)), lower::LowerStage::Rolled));
  };
  const auto a_small = access(R"({"kb":1,"xw":16,"order":"crs","pad":"inline"})");
  const auto a_large = access(R"({"kb":8,"xw":32,"order":"crs","pad":"inline"})");
  EXPECT_LT(a_small[3], a_large[3]);
  EXPECT_GT(a_large[kPerLevel + 0], 0.0f);
}

// What lets one layer's history train a model for another: program features have one length on
// every shape of an op, where the knob-based versions do not (a 1x1 conv has no unroll_kw or pad).
TEST(Conv2dFeatures, ProgramFeaturesHaveOneLengthOnEveryShapeOfAnOp) {
  const auto target = codegen::host_target();
  compiler::Task three({"conv2d_nchwc", ops::parse_shape("conv2d_nchwc", "n=1,c=32,h=14,w=14,k=32,r=3,s=3,pad=1")},
                       target);
  compiler::Task one({"conv2d_nchwc", ops::parse_shape("conv2d_nchwc", "n=1,c=32,h=14,w=14,k=32,r=1,s=1,stride=2")},
                     target);
  auto width = [](const compiler::Task& t, FeatureSet set) {
    return candidate_features(t, t.space().default_config(), set).size();
  };
  EXPECT_NE(width(three, FeatureSet::LoopNest), width(one, FeatureSet::LoopNest));
  EXPECT_EQ(width(three, FeatureSet::Program), width(one, FeatureSet::Program));
  EXPECT_EQ(kFeatureSet, FeatureSet::Program);
  for (float f : candidate_features(three, three.space().at(three.space().size() - 1), FeatureSet::Program))
    EXPECT_TRUE(std::isfinite(f));
}

// The last program features: float operations executed per operation needed, selects per operation,
// log2 selects, loads per operation. A padded input read through a guard costs a select per load;
// read from a zero-padded copy, only the copy's edge does.
TEST(Conv2dFeatures, ProgramFeaturesSeeGuardedReads) {
  codegen::Target t;
  t.vector_bits = 512;
  compiler::Task task({"conv2d", ops::parse_shape("conv2d", "c=16,h=28,w=28,k=32,r=3,s=3,pad=1")}, t);
  auto work = [&](const std::string& pad) {
    auto f = candidate_features(task, task.space().from_json(parse_json(R"({"kb":4,"xw":16,"pad":")" + pad + R"("})")),
                                FeatureSet::Program);
    return std::vector<float>(f.end() - 4, f.end());
  };
  const auto inline_read = work("inline"), copied = work("copy");
  EXPECT_GT(inline_read[1], 10 * copied[1]);
  EXPECT_GT(inline_read[0], 0.5f);  // at least the op's own work is done
  EXPECT_GT(copied[0], 0.5f);
}

}  // namespace
}  // namespace tf::tuner

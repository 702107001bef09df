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
  compiler::Task task({"conv2d_bias_relu", ops::parse_shape("conv2d_bias_relu", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1")}, t);
  auto features = [&](const std::string& config) { return candidate_features(task, task.space().from_json(parse_json(config))); };
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

}  // namespace
}  // namespace tf::tuner

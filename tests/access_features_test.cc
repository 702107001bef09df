#include <gtest/gtest.h>

#include <cmath>

#include "compiler/compiler.h"
#include "tuner/access_features.h"

namespace tf::tuner {
namespace {

constexpr int kPerLevel = 4 + 2 * kAccessBuffersPerLevel;

float log2p(double v) { return static_cast<float>(std::log2(1.0 + v)); }

std::vector<float> features_of(const std::string& config) {
  codegen::Target t;
  t.vector_bits = 512;
  compiler::Task task({"dense", {512, 512, 512}}, t);
  auto f = access_features(task.lower(task.space().from_json(parse_json(config)), lower::LowerStage::Rolled));
  EXPECT_EQ(static_cast<int>(f.size()), access_feature_count());
  return f;
}

// The hottest loop of an 8x32 register tile over packed B is the k loop: its accumulators are the
// 8x32 stack tile (1 KB), and per run of it B's panel (512 k x 32 floats) is read once per tile row.
TEST(AccessFeatures, SeeTheRegisterTileAndThePanelReuse) {
  auto f = features_of(R"({"mr":8,"nr":32,"kc":512,"mb":2,"unroll_k":2,"pack_b":true})");
  EXPECT_FLOAT_EQ(f[0], log2p(256));           // k.outer: 512 / unroll 2
  EXPECT_FLOAT_EQ(f[1], 0.0f);                 // serial
  EXPECT_FLOAT_EQ(f[3], log2p(8 * 32 * 4));    // the register tile
  EXPECT_FLOAT_EQ(f[4], log2p(512 * 32 * 4));  // largest: the B panel, 64 KB
  EXPECT_FLOAT_EQ(f[5], log2p(8));             // each panel element used by 8 rows
  EXPECT_FLOAT_EQ(f[6], log2p(8 * 512 * 4));   // then A's 8 rows, 16 KB
  EXPECT_FLOAT_EQ(f[7], log2p(32));            // each A element used for the 32 columns of its row
  // One level out (the loop over the mb tiles of a block) the panel is reused mb times more.
  EXPECT_FLOAT_EQ(f[kPerLevel + 0], log2p(2));
  EXPECT_FLOAT_EQ(f[kPerLevel + 4], log2p(512 * 32 * 4));
  EXPECT_FLOAT_EQ(f[kPerLevel + 5], log2p(8 * 2));
}

TEST(AccessFeatures, AWiderTileNeedsMoreRegistersAndReusesMore) {
  auto small = features_of(R"({"mr":2,"nr":16,"pack_b":true})");
  auto large = features_of(R"({"mr":12,"nr":32,"pack_b":true})");
  EXPECT_LT(small[3], large[3]);
  EXPECT_LT(small[5], large[5]);
  // float operations per distinct memory access in the hottest loop: 2 x (12 x 2) per 12 + 2
  const int ratio = kAccessLevels * kPerLevel + 2;
  EXPECT_LT(small[ratio], large[ratio]);
}

}  // namespace
}  // namespace tf::tuner

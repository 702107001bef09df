// The int8 depthwise convolution (qdepthwise_nchwc): points of its config space against the exact
// integer reference on MobileNetV2's depthwise layers and awkward shapes (a ragged last block,
// stride, dilation, a 5x5 window), with scales and zero points that keep most outputs off the
// saturation bounds; a channel multiplier it does not take is refused by name.
#include <gtest/gtest.h>

#include "runtime/thread_pool.h"
#include "tests/config_check.h"

namespace tf {
namespace {

class QDepthwiseSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

// The distinct outputs show the check saw values across the range: about half of them with ReLU,
// which clamps everything below the output's zero point to it.
TEST_F(QDepthwiseSpace, MobilenetLayersMatchTheIntegerReference) {
  EXPECT_GT(testing_support::expect_int8_configs_correct("qdepthwise_nchwc_relu", "c=32,h=112,w=112,k=32,r=3,s=3,pad=1",
                                                         2, 31),
            60u);
  EXPECT_GT(testing_support::expect_int8_configs_correct("qdepthwise_nchwc_relu",
                                                         "c=144,h=56,w=56,k=144,r=3,s=3,stride=2,pad=1", 2, 32),
            60u);
  EXPECT_GT(
      testing_support::expect_int8_configs_correct("qdepthwise_nchwc", "c=960,h=7,w=7,k=960,r=3,s=3,pad=1", 2, 33),
      100u);
}

TEST_F(QDepthwiseSpace, OddShapes) {
  testing_support::expect_int8_configs_correct("qdepthwise_nchwc", "c=24,h=9,w=11,k=24,r=3,s=3,pad=1,b=16", 4, 41);
  testing_support::expect_int8_configs_correct("qdepthwise_nchwc_relu",
                                               "n=2,c=16,h=10,w=7,k=16,r=3,s=3,stride=2,pad=1,b=8", 4, 42);
  testing_support::expect_int8_configs_correct(
      "qdepthwise_nchwc", "c=32,h=8,w=9,k=32,r=3,s=3,pad_top=0,pad_left=2,pad_bottom=1,pad_right=1", 4, 43);
  testing_support::expect_int8_configs_correct("qdepthwise_nchwc_relu", "c=16,h=14,w=18,k=16,r=3,s=3,dilation=2,pad=2",
                                               4, 44);
  testing_support::expect_int8_configs_correct("qdepthwise_nchwc", "c=48,h=12,w=12,k=48,r=5,s=5,pad=2", 4, 45);
}

TEST(QDepthwiseShape, AChannelMultiplierOfTwoIsRefusedByName) {
  EXPECT_NE(
      testing_support::workload_error("qdepthwise_nchwc", "c=16,h=8,w=8,k=32,r=3,s=3,pad=1").find("k must equal c"),
      std::string::npos);
  EXPECT_EQ(testing_support::workload_error("qdepthwise_nchwc", "c=16,h=8,w=8,k=16,r=3,s=3,pad=1"), "");
}

}  // namespace
}  // namespace tf

// The one median/percentile/geomean and the one workload key everything uses.
#include <gtest/gtest.h>

#include <cmath>

#include "support/stats.h"
#include "support/workload_key.h"

namespace {

TEST(Stats, MedianOfOddAndEvenCountsAndNone) {
  EXPECT_DOUBLE_EQ(tf::median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(tf::median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(tf::median({}), 0);
}

TEST(Stats, PercentileIsTheNearestRank) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  EXPECT_DOUBLE_EQ(tf::percentile(v, 0.5), 51);
  EXPECT_DOUBLE_EQ(tf::percentile(v, 0.99), 100);
  EXPECT_DOUBLE_EQ(tf::percentile(v, 1.0), 100);
  EXPECT_DOUBLE_EQ(tf::percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(tf::percentile({}, 0.5), 0);
}

TEST(Stats, GeomeanCancelsReciprocalRatiosAndRefusesNonPositive) {
  EXPECT_DOUBLE_EQ(tf::geomean({2, 0.5}), 1);
  EXPECT_NEAR(tf::geomean({1, 8}), std::sqrt(8.0), 1e-12);
  EXPECT_DOUBLE_EQ(tf::geomean({3}), 3);
  EXPECT_DOUBLE_EQ(tf::geomean({}), 0);
  EXPECT_DOUBLE_EQ(tf::geomean({1, 0, 4}), 0);
  EXPECT_DOUBLE_EQ(tf::geomean({1, -2}), 0);
}

TEST(WorkloadKey, OpShapeAndDtype) {
  EXPECT_EQ(tf::workload_key("dense", {512, 512, 512}), "dense[512,512,512]");
  EXPECT_EQ(tf::workload_key("dense", {1000, 77, 333}, "float32"), "dense[1000,77,333]:float32");
}

}  // namespace

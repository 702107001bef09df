// max_pool3d and avg_pool3d (NCDHW) against plain loops written here, and random points of their
// config spaces on awkward shapes against the op's reference; nonsense refused by field.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "compiler/error.h"
#include "compiler/ops/registry.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"
#include "tests/op_kernel_run.h"

namespace tf {
namespace {

using testing_support::expect_configs_correct;
using testing_support::random_floats;
using testing_support::workload_error;

struct Axis {
  int64_t in, kernel, stride, dilation, pad_begin, pad_end;
  int64_t out() const { return (in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride + 1; }
};

// ONNX's MaxPool / AveragePool on one [C, D, H, W] batch: the window's taps inside the input; an
// average divides by the whole window or by the taps inside.
std::vector<float> pool3d_loop(int64_t planes, const Axis (&a)[3], const std::vector<float>& x, bool max,
                               bool count_pad) {
  std::vector<float> y;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t z = 0; z < a[0].out(); ++z)
      for (int64_t r = 0; r < a[1].out(); ++r)
        for (int64_t q = 0; q < a[2].out(); ++q) {
          double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
          int64_t taps = 0;
          for (int64_t kz = 0; kz < a[0].kernel; ++kz)
            for (int64_t ky = 0; ky < a[1].kernel; ++ky)
              for (int64_t kx = 0; kx < a[2].kernel; ++kx) {
                const int64_t iz = z * a[0].stride + kz * a[0].dilation - a[0].pad_begin;
                const int64_t iy = r * a[1].stride + ky * a[1].dilation - a[1].pad_begin;
                const int64_t ix = q * a[2].stride + kx * a[2].dilation - a[2].pad_begin;
                if (iz < 0 || iz >= a[0].in || iy < 0 || iy >= a[1].in || ix < 0 || ix >= a[2].in) continue;
                const double v = x[((p * a[0].in + iz) * a[1].in + iy) * a[2].in + ix];
                acc = max ? std::max(acc, v) : acc + v;
                ++taps;
              }
          if (!max) acc /= static_cast<double>(count_pad ? a[0].kernel * a[1].kernel * a[2].kernel : taps);
          y.push_back(static_cast<float>(acc));
        }
  return y;
}

TEST(Pool3dOp, MatchesPlainLoops) {
  runtime::set_num_threads(2);
  const Axis a[3] = {{5, 2, 2, 1, 1, 0}, {6, 3, 1, 1, 1, 1}, {11, 3, 2, 1, 0, 2}};
  const std::string window =
      "n=2,c=3,d=5,h=6,w=11,kd=2,kh=3,kw=3,stride_d=2,stride_h=1,stride_w=2,"
      "pad_front=1,pad_top=1,pad_left=0,pad_back=0,pad_bottom=1,pad_right=2";
  const auto x = random_floats(2 * 3 * 5 * 6 * 11, 7);
  testing_support::expect_close(testing_support::run_op_kernel("max_pool3d", window, {x}),
                                pool3d_loop(6, a, x, true, false), 0, "max");
  testing_support::expect_close(testing_support::run_op_kernel("avg_pool3d", window, {x}),
                                pool3d_loop(6, a, x, false, false), 1e-6, "avg");
  testing_support::expect_close(testing_support::run_op_kernel("avg_pool3d", window + ",count_include_pad=1", {x}),
                                pool3d_loop(6, a, x, false, true), 1e-6, "avg count_include_pad");
}

TEST(Pool3dOp, DilatedWindowsMatchPlainLoops) {
  runtime::set_num_threads(2);
  const Axis a[3] = {{6, 2, 1, 2, 1, 1}, {7, 2, 2, 3, 2, 0}, {9, 3, 1, 2, 1, 2}};
  const std::string window =
      "c=2,d=6,h=7,w=9,kd=2,kh=2,kw=3,stride_h=2,dilation_d=2,dilation_h=3,dilation_w=2,"
      "pad_front=1,pad_top=2,pad_left=1,pad_back=1,pad_bottom=0,pad_right=2";
  const auto x = random_floats(2 * 6 * 7 * 9, 8);
  testing_support::expect_close(testing_support::run_op_kernel("max_pool3d", window, {x}),
                                pool3d_loop(2, a, x, true, false), 0, "max");
  testing_support::expect_close(testing_support::run_op_kernel("avg_pool3d", window, {x}),
                                pool3d_loop(2, a, x, false, false), 1e-6, "avg");
}

TEST(Pool3dSpace, RandomConfigsOnAwkwardShapes) {
  runtime::set_num_threads(2);
  const std::string shape =
      "n=2,c=5,d=7,h=9,w=19,kd=3,kh=2,kw=3,stride_d=2,stride_w=2,pad_front=1,pad_left=1,pad_back=1,pad_right=1,"
      "pad_top=0,pad_bottom=1";
  expect_configs_correct("max_pool3d", shape, testing_support::kEveryConfig, 1);
  expect_configs_correct("avg_pool3d", shape, testing_support::kEveryConfig, 2);
  expect_configs_correct("avg_pool3d", "c=3,d=8,h=16,w=16,kd=2,kh=2,kw=2,stride=2", testing_support::kEveryConfig, 3);
}

TEST(Pool3dOp, NonsenseIsRefusedByField) {
  EXPECT_EQ(workload_error("max_pool3d", "c=2,d=4,h=4,w=4,kd=2,kh=2,kw=2,stride=2"), "");
  EXPECT_NE(workload_error("max_pool3d", "c=2,d=4,h=4,w=4,kd=2,kh=2,kw=2,pad_front=2")
                .find("pad_front must be smaller than the window"),
            std::string::npos);
  EXPECT_NE(
      workload_error("avg_pool3d", "c=2,d=4,h=4,w=4,kd=2,kh=2,kw=2,count_include_pad=2").find("count_include_pad = 2"),
      std::string::npos);
  EXPECT_NE(workload_error("max_pool3d", "c=2,d=4,h=4,w=4,kd=2,kh=5,kw=2").find("kh = 5"), std::string::npos);
  EXPECT_NE(workload_error("max_pool3d", "c=2,d=4,h=4,w=4,kd=2,kh=2,kw=2,count_include_pad=1")
                .find("unknown extent 'count_include_pad'"),
            std::string::npos);
}

}  // namespace
}  // namespace tf

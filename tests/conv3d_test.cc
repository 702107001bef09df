// conv3d (NCDHW) against a plain loop written here, every epilogue, and random points of its config
// space on awkward shapes (ragged tiles, per-axis strides, dilations and asymmetric pads, groups,
// batch 2) against the op's reference; its extents read and printed by name, nonsense refused.
#include <gtest/gtest.h>

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

struct Window {
  int64_t in, kernel, stride, dilation, pad_begin;
  int64_t out(int64_t pad_end) const { return (in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride + 1; }
};

// out[b, o, z, y, x] = bias[o] + sum over (i, kz, ky, kx) of in[b, g*cg + i, z*s + kz*d - p, ...]
// * w[o, i, kz, ky, kx], written as ONNX's Conv defines it, then relu when asked.
std::vector<float> conv3d_loop(int64_t n, int64_t c, int64_t k, int64_t groups, const Window (&a)[3],
                               const int64_t (&pad_end)[3], const std::vector<float>& x, const std::vector<float>& w,
                               const std::vector<float>* bias, bool relu) {
  const int64_t cg = c / groups, kg = k / groups;
  const int64_t od = a[0].out(pad_end[0]), oh = a[1].out(pad_end[1]), ow = a[2].out(pad_end[2]);
  std::vector<float> y;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < k; ++o)
      for (int64_t z = 0; z < od; ++z)
        for (int64_t r = 0; r < oh; ++r)
          for (int64_t q = 0; q < ow; ++q) {
            double s = bias ? (*bias)[o] : 0.0;
            for (int64_t i = 0; i < cg; ++i)
              for (int64_t kz = 0; kz < a[0].kernel; ++kz)
                for (int64_t ky = 0; ky < a[1].kernel; ++ky)
                  for (int64_t kx = 0; kx < a[2].kernel; ++kx) {
                    const int64_t iz = z * a[0].stride + kz * a[0].dilation - a[0].pad_begin;
                    const int64_t iy = r * a[1].stride + ky * a[1].dilation - a[1].pad_begin;
                    const int64_t ix = q * a[2].stride + kx * a[2].dilation - a[2].pad_begin;
                    if (iz < 0 || iz >= a[0].in || iy < 0 || iy >= a[1].in || ix < 0 || ix >= a[2].in) continue;
                    const int64_t ch = (o / kg) * cg + i;
                    s += static_cast<double>(x[(((b * c + ch) * a[0].in + iz) * a[1].in + iy) * a[2].in + ix]) *
                         w[(((o * cg + i) * a[0].kernel + kz) * a[1].kernel + ky) * a[2].kernel + kx];
                  }
            y.push_back(static_cast<float>(relu ? std::max(s, 0.0) : s));
          }
  return y;
}

TEST(Conv3dOp, MatchesAPlainLoopForEveryEpilogue) {
  runtime::set_num_threads(2);
  // d: stride 2, pads 1/0; h: dilation 2, pad 2/1; w: kernel 3, pad 1/1; groups 2.
  const Window a[3] = {{5, 2, 2, 1, 1}, {7, 3, 1, 2, 2}, {9, 3, 1, 1, 1}};
  const int64_t pad_end[3] = {0, 1, 1};
  const int64_t n = 2, c = 4, k = 6, groups = 2;
  const std::string shape =
      "n=2,c=4,d=5,h=7,w=9,k=6,kd=2,kh=3,kw=3,groups=2,stride_d=2,dilation_h=2,"
      "pad_front=1,pad_top=2,pad_left=1,pad_back=0,pad_bottom=1,pad_right=1";
  const auto x = random_floats(static_cast<size_t>(n * c * 5 * 7 * 9), 1);
  const auto w = random_floats(static_cast<size_t>(k * (c / groups) * 2 * 3 * 3), 2);
  const auto bias = random_floats(static_cast<size_t>(k), 3);
  testing_support::expect_close(testing_support::run_op_kernel("conv3d", shape, {x, w}),
                                conv3d_loop(n, c, k, groups, a, pad_end, x, w, nullptr, false), 1e-5, "conv3d");
  testing_support::expect_close(testing_support::run_op_kernel("conv3d_bias", shape, {x, w, bias}),
                                conv3d_loop(n, c, k, groups, a, pad_end, x, w, &bias, false), 1e-5, "conv3d_bias");
  const auto relu = testing_support::run_op_kernel("conv3d_bias_relu", shape, {x, w, bias});
  testing_support::expect_close(relu, conv3d_loop(n, c, k, groups, a, pad_end, x, w, &bias, true), 1e-5,
                                "conv3d_bias_relu");
  EXPECT_TRUE(std::any_of(relu.begin(), relu.end(), [](float v) { return v == 0.0f; })) << "relu never clipped";
}

class Conv3dSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

TEST_F(Conv3dSpace, RaggedTiles) {
  expect_configs_correct("conv3d", "c=3,d=4,h=6,w=13,k=11,kd=3,kh=3,kw=3,pad=1", 20, 1);
}
TEST_F(Conv3dSpace, StridesDilationsAndPadsPerAxis) {
  expect_configs_correct(
      "conv3d_bias",
      "c=4,d=7,h=6,w=11,k=5,kd=2,kh=3,kw=2,stride_d=2,stride_w=3,dilation_h=2,pad_front=1,pad_top=0,pad_left=2,"
      "pad_back=0,pad_bottom=1,pad_right=1",
      15, 2);
}
TEST_F(Conv3dSpace, GroupsAndBatch) {
  expect_configs_correct("conv3d_bias_relu", "n=2,c=6,d=3,h=5,w=6,k=9,kd=3,kh=3,kw=3,groups=3,pad=1", 15, 3);
  expect_configs_correct("conv3d", "c=4,d=4,h=4,w=5,k=4,kd=1,kh=3,kw=3,groups=4,stride=2,pad=1", 10, 4);
}
TEST_F(Conv3dSpace, AVideoLayer) {
  expect_configs_correct("conv3d_bias_relu", "c=16,d=8,h=28,w=28,k=32,kd=3,kh=3,kw=3,pad=1", 2, 5, false);
}

TEST(Conv3dOp, ShapesReadAndPrintByName) {
  const auto& op = ops::find_operator("conv3d_bias");
  const auto shape = ops::parse_shape("conv3d_bias", "c=16,d=8,h=28,w=28,k=32,kd=3,kh=3,kw=3,stride=2,pad=1");
  EXPECT_EQ(op.shape_text(shape), "n=1,c=16,d=8,h=28,w=28,k=32,kd=3,kh=3,kw=3,stride=2,pad=1");
  EXPECT_EQ(op.output_shape(shape), (std::vector<int64_t>{1, 32, 4, 14, 14}));
  EXPECT_EQ(op.input_shapes(shape)[1], (std::vector<int64_t>{32, 16, 3, 3, 3}));
  EXPECT_EQ(op.flops(shape), int64_t{2} * 32 * 16 * 4 * 14 * 14 * 27);
  const auto uneven = ops::parse_shape("conv3d", "c=2,d=4,h=5,w=6,k=2,kd=1,kh=2,kw=3,stride_h=2,pad_back=1");
  EXPECT_EQ(ops::find_operator("conv3d").shape_text(uneven),
            "n=1,c=2,d=4,h=5,w=6,k=2,kd=1,kh=2,kw=3,stride_d=1,stride_h=2,stride_w=1,pad_front=0,pad_top=0,pad_left=0,"
            "pad_back=1,pad_bottom=0,pad_right=0");
  EXPECT_EQ(ops::parse_shape("conv3d", ops::find_operator("conv3d").shape_text(uneven)), uneven);
}

TEST(Conv3dOp, NonsenseIsRefusedByField) {
  EXPECT_NE(
      workload_error("conv3d", "c=6,d=4,h=4,w=4,k=4,kd=1,kh=1,kw=1,groups=4").find("groups = 4 does not divide c = 6"),
      std::string::npos);
  EXPECT_NE(workload_error("conv3d", "c=2,d=2,h=4,w=4,k=4,kd=3,kh=1,kw=1").find("kd = 3"), std::string::npos);
  EXPECT_NE(
      workload_error("conv3d", "c=2,d=2,h=4,w=4,k=4,kd=1,kh=1,kw=1,stride_w=0").find("stride_w = 0 must be positive"),
      std::string::npos);
  EXPECT_NE(workload_error("conv3d", "c=2,d=2,h=4,w=4,k=4,kd=1,kh=1,kw=1,pad_back=-1").find("pad_back = -1"),
            std::string::npos);
  EXPECT_NE(workload_error("conv3d", "c=2,d=2,h=4,k=4,kd=1,kh=1,kw=1").find("w= is missing"), std::string::npos);
  EXPECT_NE(workload_error("conv3d", "c=2,d=2,h=4,w=4,k=4,kd=1,kh=1,kw=1,r=3").find("unknown extent 'r'"),
            std::string::npos);
}

}  // namespace
}  // namespace tf

// conv3d_transpose (ONNX ConvTranspose on NCDHW) against a plain loop written here in the gather
// form (each output sums the input elements that reach it), and random points of its config space
// on awkward shapes against the op's scatter-form reference; nonsense refused by field.
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

struct Axis {
  int64_t in, kernel, stride, dilation, pad_begin, pad_end, output_padding;
  int64_t out() const { return (in - 1) * stride + output_padding + (kernel - 1) * dilation + 1 - pad_begin - pad_end; }
  // The input index tap j reads for output o, or -1.
  int64_t source(int64_t o, int64_t j) const {
    const int64_t q = o + pad_begin - j * dilation;
    return q >= 0 && q % stride == 0 && q / stride < in ? q / stride : -1;
  }
};

TEST(Conv3dTransposeOp, MatchesAPlainLoop) {
  runtime::set_num_threads(2);
  const Axis a[3] = {{3, 2, 2, 1, 0, 1, 1}, {4, 3, 1, 2, 1, 0, 0}, {5, 3, 3, 1, 1, 1, 2}};
  const int64_t n = 2, c = 4, k = 6, groups = 2, cg = c / groups, kg = k / groups;
  const std::string shape =
      "n=2,c=4,d=3,h=4,w=5,k=6,kd=2,kh=3,kw=3,groups=2,stride_d=2,stride_h=1,stride_w=3,dilation_h=2,"
      "pad_front=0,pad_top=1,pad_left=1,pad_back=1,pad_bottom=0,pad_right=1,output_padding_d=1,output_padding_w=2";
  const auto x = random_floats(static_cast<size_t>(n * c * 3 * 4 * 5), 1);
  const auto w = random_floats(static_cast<size_t>(c * kg * 2 * 3 * 3), 2);
  const auto bias = random_floats(static_cast<size_t>(k), 3);
  std::vector<float> want;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < k; ++o)
      for (int64_t z = 0; z < a[0].out(); ++z)
        for (int64_t y = 0; y < a[1].out(); ++y)
          for (int64_t q = 0; q < a[2].out(); ++q) {
            double s = bias[o];
            for (int64_t i = 0; i < cg; ++i)
              for (int64_t jz = 0; jz < a[0].kernel; ++jz)
                for (int64_t jy = 0; jy < a[1].kernel; ++jy)
                  for (int64_t jx = 0; jx < a[2].kernel; ++jx) {
                    const int64_t iz = a[0].source(z, jz), iy = a[1].source(y, jy), ix = a[2].source(q, jx);
                    if (iz < 0 || iy < 0 || ix < 0) continue;
                    const int64_t ch = (o / kg) * cg + i;
                    s += static_cast<double>(x[(((b * c + ch) * 3 + iz) * 4 + iy) * 5 + ix]) *
                         w[(((ch * kg + o % kg) * 2 + jz) * 3 + jy) * 3 + jx];
                  }
            want.push_back(static_cast<float>(s));
          }
  const auto& op = ops::find_operator("conv3d_transpose_bias");
  EXPECT_EQ(op.output_shape(ops::parse_shape("conv3d_transpose_bias", shape)), (std::vector<int64_t>{2, 6, 6, 7, 15}));
  testing_support::expect_close(testing_support::run_op_kernel("conv3d_transpose_bias", shape, {x, w, bias}), want,
                                1e-5, "conv3d_transpose_bias");
}

TEST(Conv3dTransposeSpace, RandomConfigsOnAwkwardShapes) {
  runtime::set_num_threads(2);
  expect_configs_correct("conv3d_transpose", "c=3,d=3,h=4,w=5,k=5,kd=3,kh=3,kw=3", 10, 1);
  expect_configs_correct("conv3d_transpose_bias",
                         "n=2,c=4,d=2,h=3,w=7,k=6,kd=2,kh=2,kw=3,stride=2,pad=1,groups=2,output_padding_w=1", 10, 2);
  // Negative pads (an output_shape beyond the natural one) widen the output.
  expect_configs_correct("conv3d_transpose", "c=2,d=2,h=3,w=3,k=2,kd=2,kh=2,kw=2,stride=2,pad_back=-1,pad_right=-1", 5,
                         3);
}

TEST(Conv3dTransposeOp, NonsenseIsRefusedByField) {
  EXPECT_EQ(workload_error("conv3d_transpose", "c=2,d=2,h=2,w=2,k=2,kd=2,kh=2,kw=2,stride=2,output_padding=1"), "");
  EXPECT_NE(workload_error("conv3d_transpose", "c=2,d=2,h=2,w=2,k=2,kd=2,kh=2,kw=2,output_padding_h=1")
                .find("output_padding_h = 1"),
            std::string::npos);
  EXPECT_NE(workload_error("conv3d_transpose", "c=3,d=2,h=2,w=2,k=2,kd=2,kh=2,kw=2,groups=2")
                .find("groups = 2 does not divide c = 3"),
            std::string::npos);
  EXPECT_NE(workload_error("conv3d_transpose", "c=2,d=2,h=2,w=2,k=2,kd=1,kh=1,kw=1,pad_front=1,pad_back=1")
                .find("leaves no output along d"),
            std::string::npos);
}

}  // namespace
}  // namespace tf

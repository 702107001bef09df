// Winograd convolution F(m x m, 3 x 3) (Lavin & Gray, CVPR 2016) on the blocked NCHWc layouts:
// each m x m output tile is Y = A^T [ U (.) V ] A, with V = B^T d B the tile's (m+2) x (m+2)
// input patch transformed and U = G g G^T the 3x3 filter transformed once, at build time. Per
// output tile and channel pair that is (m+2)^2 multiplies instead of 9 m^2: 2.25x fewer for
// F(2x2), 4x for F(4x4), 5.06x for F(6x6), at the price of transforms and of accuracy that falls
// as m grows (the transforms' entries grow with the interpolation points).
//
// What the graph pass and the kernel share: the shape (conv2d_nchwc's extents and m), the
// transform matrices, the weight transform and the layout of U the kernel reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/nchwc_shape.h"

namespace tf::ops {

// conv2d_winograd_nchwc and its epilogues: Conv2dNchwcShape's extents followed by m, the output
// tile (2, 4 or 6). Only 3x3, stride 1, dilation 1, groups 1; any padding.
struct Conv2dWinogradShape : Conv2dNchwcShape {
  int64_t m = 4;

  static const std::vector<std::string>& names();  // Conv2dNchwcShape::names() + m
  static Conv2dWinogradShape from_vector(const std::vector<int64_t>& v);
  std::vector<int64_t> to_vector() const;
  static Conv2dWinogradShape from_named(const std::map<std::string, int64_t>& named);  // m defaults to 4
  void check(const std::string& op) const;
  std::string named() const;

  int64_t alpha() const { return m + 2; }                     // the transformed tile's side
  int64_t tiles_h() const { return ceil_div(conv.oh(), m); }  // output tiles per column
  int64_t tiles_w() const { return ceil_div(conv.ow(), m); }  // and per row
};

// The transforms of F(m x m, 3 x 3), generated (Toom-Cook) from the interpolation points: 0, 1, -1
// (m = 2), then 2, -2 (m = 4), then 1/2, -1/2 (m = 6), and the point at infinity, which is the last
// row of B^T and G and the last column of A^T. Row-major: at is m x alpha, g alpha x 3, bt
// alpha x alpha. The entries of A^T and B^T are dyadic, so a kernel's constants are exact.
struct WinogradMatrices {
  int64_t m = 0, alpha = 0;
  std::vector<double> points;  // the finite ones
  std::vector<std::vector<double>> at, g, bt;
};
// Throws CompileError for m other than 2, 4, 6.
const WinogradMatrices& winograd_matrices(int64_t m);

// The transformed weight's layout, what the kernel reads: (alpha, alpha, ceil(k/ob), ceil(c/ib),
// ib, ob). U[a][b][o / ob][i / ib][i % ib][o % ob] = (G g[o][i] G^T)[a][b]; padded channels 0.
std::vector<int64_t> winograd_weight_shape(const Conv2dNchwcShape& sh, int64_t m);
// From the ONNX weight (k, c, 3, 3); computed in double, rounded once.
std::vector<float> winograd_weight_transform(const float* oihw_weight, const Conv2dNchwcShape& sh, int64_t m);

// What the kernel computes, in double: per output tile A^T [ sum_c U (.) B^T d B ] A over the real
// channels, then the epilogue (bias (ceil(k/ob), ob), residual in the output layout; either may be
// null), blocked; padded output channels exactly 0. When U is a transformed weight this is the
// direct convolution. The per-element bound is the float32 rounding of that evaluation order in
// any summation order: gamma(c + 4 alpha + 4) times the same sum over magnitudes, which grows
// with m as the transforms' entries do.
void conv2d_winograd_reference(const Conv2dWinogradShape& sh, const float* data, const float* u, const float* bias,
                               const float* residual, bool relu, bool clip6, std::vector<float>* output,
                               std::vector<float>* tolerance);

}  // namespace tf::ops

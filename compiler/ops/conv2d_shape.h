// A 2-D convolution's extents, shared by every conv2d operator (plain NCHW, blocked NCHWc, each
// epilogue): the positional form a workload key stores, the named form a user types
// (`n=1,c=64,h=56,w=56,k=64,r=3,s=3,stride=1,pad=1`), the derived output size and the checks that
// refuse a workload that makes no sense, naming the field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_extents.h"

namespace tf::ops {

// n, c, h, w, k, r, s (Conv2dExtents), then:
struct Conv2dShape : Conv2dExtents {
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t groups = 1;  // depthwise: groups == c (k = c * channel multiplier)
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;

  // The positional order of a workload's shape vector (and of its db key).
  static const std::vector<std::string>& names();
  static Conv2dShape from_vector(const std::vector<int64_t>& v);  // v.size() == names().size()
  std::vector<int64_t> to_vector() const;
  // From named extents: c,h,w,k,r,s required; n, stride, dilation and groups default to
  // 1; pad sets all four sides, pad_top/pad_left/pad_bottom/pad_right override one; unknown names,
  // missing required ones and values that make no sense are tf::CompileError naming the field.
  static Conv2dShape from_named(const std::map<std::string, int64_t>& named);

  int64_t oh() const { return (h + pad_top + pad_bottom - dilation * (r - 1) - 1) / stride + 1; }
  int64_t ow() const { return (w + pad_left + pad_right - dilation * (s - 1) - 1) / stride + 1; }
  int64_t c_per_group() const { return c / groups; }
  int64_t k_per_group() const { return k / groups; }
  bool depthwise() const { return groups == c && groups > 1; }
  bool padded() const { return pad_top || pad_left || pad_bottom || pad_right; }
  int64_t flops() const { return 2 * n * k * oh() * ow() * c_per_group() * r * s; }

  // Throws tf::CompileError naming the first field that makes no sense: a non-positive extent,
  // stride or dilation of 0, a negative pad, channels not divisible by groups, a (dilated) kernel
  // larger than the padded input.
  void check(const std::string& op) const;
  // "n=1,c=64,h=56,w=56,k=64,r=3,s=3,stride=1,pad=1": what a user types, defaults left out.
  std::string named() const;
};

// Computes a convolution in double precision from float NCHW input and OIHW weight (k, c/groups,
// r, s) into NCHW output, with the per-element bound a correct float32 kernel stays within (any
// summation order, with or without FMA). `bias` (k) and `residual` (NCHW output-shaped) may be
// null; relu / clip6 apply after bias and residual.
struct Conv2dEpilogue {
  const float* bias = nullptr;
  const float* residual = nullptr;
  bool relu = false;
  bool clip6 = false;  // min(max(x, 0), 6)
};
void conv2d_reference(const Conv2dShape& sh, const float* input, const float* weight, const Conv2dEpilogue& epilogue,
                      std::vector<float>* output, std::vector<float>* tolerance);

}  // namespace tf::ops

// A 2-D transposed convolution's extents (ONNX ConvTranspose on NCHW, weight [c, k/group, r, s]):
// the positional form a workload key stores, the named form a user types
// (`c=256,h=16,w=16,k=256,r=2,s=2,stride=2`), the output size, the checks that refuse nonsense
// naming the field, and the double-precision reference.
//
// The output size is ONNX's with explicit pads:
//   oh = stride_h * (h - 1) + output_padding_h + (r - 1) * dilation_h + 1 - pad_top - pad_bottom
// (ow the same with w, s, stride_w, dilation_w, pad_left, pad_right, output_padding_w). An
// importer resolves ONNX's output_shape and auto_pad to pads first: with out = output_shape (or
// in * stride for SAME_*), total = stride * (in - 1) + output_padding + (kernel - 1) * dilation +
// 1 - out and half = floor(total / 2) (total may be negative): SAME_UPPER pads half at the start
// and total - half at the end; SAME_LOWER and NOTSET-with-output_shape the reverse. Pads may be
// negative (an output_shape beyond the natural one), as ONNX's node tests check.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_extents.h"

namespace tf::ops {

// n, c, h, w, k, r, s (Conv2dExtents), then:
struct Conv2dTransposeShape : Conv2dExtents {
  int64_t group = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t output_padding_h = 0, output_padding_w = 0;

  static const std::vector<std::string>& names();
  static Conv2dTransposeShape from_vector(const std::vector<int64_t>& v);
  std::vector<int64_t> to_vector() const;
  // c,h,w,k,r,s required; n, group, strides and dilations default to 1, pads and output padding
  // to 0; stride=, dilation=, output_padding= set both axes and pad= all four sides, each
  // overridden by the per-axis name.
  static Conv2dTransposeShape from_named(const std::map<std::string, int64_t>& named);

  int64_t oh() const { return stride_h * (h - 1) + output_padding_h + (r - 1) * dilation_h + 1 - pad_top - pad_bottom; }
  int64_t ow() const { return stride_w * (w - 1) + output_padding_w + (s - 1) * dilation_w + 1 - pad_left - pad_right; }
  int64_t c_per_group() const { return c / group; }
  int64_t k_per_group() const { return k / group; }
  // Every input pixel times every tap, per output channel of its group.
  int64_t flops() const { return 2 * n * k * c_per_group() * h * w * r * s; }

  // Throws tf::CompileError naming the first field that makes no sense: a non-positive extent,
  // group not dividing c or k, a negative pad, output padding not below the stride or the
  // dilation (ONNX's rule), an output of no rows or columns.
  void check(const std::string& op) const;
  std::string named() const;
};

// In double precision from float input [n,c,h,w] and weight [c, k/group, r, s] (bias [k] or
// null): the output [n,k,oh,ow] and per element the bound a correct float32 kernel stays within.
void conv2d_transpose_reference(const Conv2dTransposeShape& sh, const float* input, const float* weight,
                                const float* bias, std::vector<float>* output, std::vector<float>* tolerance);

}  // namespace tf::ops

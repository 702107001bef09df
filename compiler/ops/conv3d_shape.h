// A 3-D convolution's extents (NCDHW input, weight [k, c/groups, kd, kh, kw]): the positional form
// a workload key stores, the named form a user types
// (`n=1,c=16,d=8,h=28,w=28,k=32,kd=3,kh=3,kw=3,pad=1`), the output extents, the checks that refuse
// a workload that makes no sense (naming the field), and the double-precision reference.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/window_axes3d.h"

namespace tf::ops {

struct Conv3dShape {
  int64_t n = 1, c = 0, k = 0, groups = 1;
  WindowAxes3d ax;  // depth, height, width

  // n, c, d, h, w, k, kd, kh, kw, groups, then window3d_rest_names().
  static const std::vector<std::string>& names();
  static Conv3dShape from_vector(const std::vector<int64_t>& v);
  std::vector<int64_t> to_vector() const;
  // c, d, h, w, k, kd, kh, kw required; n and groups default to 1; stride=, dilation=, pad= set
  // all three axes.
  static Conv3dShape from_named(const std::map<std::string, int64_t>& named);
  // The same from extents whose names are already checked (a shape that adds its own to these).
  static Conv3dShape from_extents(const NamedExtents& e);

  int64_t c_per_group() const { return c / groups; }
  int64_t k_per_group() const { return k / groups; }
  std::vector<int64_t> input_shape() const { return {n, c, ax[0].in, ax[1].in, ax[2].in}; }
  std::vector<int64_t> weight_shape() const { return {k, c_per_group(), ax[0].kernel, ax[1].kernel, ax[2].kernel}; }
  std::vector<int64_t> output_shape() const { return {n, k, ax[0].out(), ax[1].out(), ax[2].out()}; }
  bool padded() const;
  int64_t flops() const;

  void check(const std::string& op) const;
  std::string named() const;
};

// out = conv3d(input, weight) (+ bias[k]) (then max(., 0) when relu), in double precision, with
// the per-element bound a correct float32 kernel stays within (any summation order, FMA or not).
void conv3d_reference(const Conv3dShape& sh, const float* input, const float* weight, const float* bias, bool relu,
                      std::vector<float>* output, std::vector<float>* tolerance);

}  // namespace tf::ops

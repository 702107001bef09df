// A 2-D pooling window's extents on NCHW, shared by max_pool2d and avg_pool2d: the positional form
// a workload key stores, the named form a user types (`n=1,c=64,h=112,w=112,r=3,s=3,stride=2,pad=1`),
// the output size and the checks that refuse nonsense, naming the field.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tf::ops {

struct Pool2dShape {
  int64_t n = 1, c = 0, h = 0, w = 0;
  int64_t r = 0, s = 0;  // window height and width
  int64_t stride = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  // avg_pool2d only: 1 divides by the whole window (padding counted), 0 by the inputs it covers.
  int64_t count_include_pad = 0;

  // The positional names; avg_pool2d has count_include_pad last.
  static std::vector<std::string> names(bool with_count);
  static Pool2dShape from_vector(const std::vector<int64_t>& v, bool with_count);
  std::vector<int64_t> to_vector(bool with_count) const;
  // c,h,w,r,s required; n and stride default to 1, count_include_pad to 0; pad sets all four
  // sides, pad_top/pad_left/pad_bottom/pad_right one each. Unknown names are refused.
  static Pool2dShape from_named(const std::map<std::string, int64_t>& named, bool with_count, const std::string& op);

  int64_t oh() const { return (h + pad_top + pad_bottom - r) / stride + 1; }
  int64_t ow() const { return (w + pad_left + pad_right - s) / stride + 1; }
  bool padded() const { return pad_top || pad_left || pad_bottom || pad_right; }

  // Throws tf::CompileError naming the first field that makes no sense: a non-positive extent, a
  // negative pad, a pad as wide as the window (an output of padding only), a window larger than the
  // padded input, count_include_pad other than 0 or 1.
  void check(const std::string& op, bool with_count) const;
  std::string named(bool with_count) const;
};

}  // namespace tf::ops

// The blocked (NCHWc) layouts fast CPU convolutions keep between layers, and the extents of the ops
// that use them. An activation (n, c, h, w) is stored as (n, ceil(c/b), h, w, b): b channels side by
// side, one vector of them per pixel. A conv weight (k, c, r, s) is packed as
// (ceil(k/ob), ceil(c/ib), r, s, ib, ob), so a micro-kernel reads ob output channels' weights for one
// input channel as one vector. Channels beyond c (or k) in the last block are padding: the ops write
// zeros there and never let what they read there reach a real channel.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_shape.h"

namespace tf::ops {

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// conv2d_nchwc and its epilogues: the plain conv2d extents (groups = 1) plus the input and output
// channel blocks.
struct Conv2dNchwcShape {
  Conv2dShape conv;
  int64_t ib = 16, ob = 16;

  static const std::vector<std::string>& names();  // Conv2dShape::names() + ib, ob
  static Conv2dNchwcShape from_vector(const std::vector<int64_t>& v);
  std::vector<int64_t> to_vector() const;
  static Conv2dNchwcShape from_named(const std::map<std::string, int64_t>& named);  // ib, ob default 16
  void check(const std::string& op) const;
  std::string named() const;

  int64_t c_blocks() const { return ceil_div(conv.c, ib); }
  int64_t k_blocks() const { return ceil_div(conv.k, ob); }
  std::vector<int64_t> data_shape() const { return {conv.n, c_blocks(), conv.h, conv.w, ib}; }
  std::vector<int64_t> weight_shape() const { return {k_blocks(), c_blocks(), conv.r, conv.s, ib, ob}; }
  std::vector<int64_t> out_shape() const { return {conv.n, k_blocks(), conv.oh(), conv.ow(), ob}; }
};

// depthwise_nchwc and its epilogues: groups = c, k = c x multiplier (1 or 2), one block size b for
// input and output; weight (ceil(k/b), r, s, b).
struct DepthwiseNchwcShape {
  Conv2dShape conv;
  int64_t b = 16;

  static const std::vector<std::string>& names();  // Conv2dShape::names() + b
  static DepthwiseNchwcShape from_vector(const std::vector<int64_t>& v);
  std::vector<int64_t> to_vector() const;
  // groups defaults to c here (the op is depthwise), b to 16.
  static DepthwiseNchwcShape from_named(const std::map<std::string, int64_t>& named);
  void check(const std::string& op) const;
  std::string named() const;

  int64_t multiplier() const { return conv.k / conv.c; }
  int64_t c_blocks() const { return ceil_div(conv.c, b); }
  int64_t k_blocks() const { return ceil_div(conv.k, b); }
  std::vector<int64_t> data_shape() const { return {conv.n, c_blocks(), conv.h, conv.w, b}; }
  std::vector<int64_t> weight_shape() const { return {k_blocks(), conv.r, conv.s, b}; }
  std::vector<int64_t> out_shape() const { return {conv.n, k_blocks(), conv.oh(), conv.ow(), b}; }
};

// Plain <-> blocked copies for the references. `to_blocked` writes zeros into padded channels;
// `from_blocked` ignores them. Activations are (n, c, pixels) with `pixels` = h * w.
std::vector<float> activation_to_blocked(const float* plain, int64_t n, int64_t c, int64_t pixels, int64_t b);
std::vector<float> activation_from_blocked(const float* blocked, int64_t n, int64_t c, int64_t pixels, int64_t b);
// OIHW (k, c, r, s) <-> (ceil(k/ob), ceil(c/ib), r, s, ib, ob).
std::vector<float> weight_to_packed(const float* oihw, int64_t k, int64_t c, int64_t taps, int64_t ib, int64_t ob);
std::vector<float> weight_from_packed(const float* packed, int64_t k, int64_t c, int64_t taps, int64_t ib, int64_t ob);

// The double-precision references of the blocked convolutions: the plain conv2d_reference on the
// real channels, blocked again; padded output channels must be exactly zero. `bias` is blocked
// (ceil(k/ob), ob) and `residual` in the output layout; either may be null.
void conv2d_nchwc_reference(const Conv2dNchwcShape& sh, const float* data, const float* weight, const float* bias,
                            const float* residual, bool relu, bool clip6, std::vector<float>* output,
                            std::vector<float>* tolerance);
void depthwise_nchwc_reference(const DepthwiseNchwcShape& sh, const float* data, const float* weight, const float* bias,
                               bool relu, bool clip6, std::vector<float>* output, std::vector<float>* tolerance);

}  // namespace tf::ops

// What the 3-D sliding-window ops (conv3d, max_pool3d, avg_pool3d on NCDHW) share: one window axis
// (input extent, kernel extent, stride, dilation, pads) per spatial axis, and their extents in the
// positional order a workload key stores, by name as a user types them, checked and printed.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/window_extents.h"

namespace tf::ops {

struct WindowAxis {
  int64_t in = 0, kernel = 0;
  int64_t stride = 1, dilation = 1;
  int64_t pad_begin = 0, pad_end = 0;

  int64_t span() const { return dilation * (kernel - 1) + 1; }  // input extent one window covers
  int64_t padded() const { return in + pad_begin + pad_end; }
  int64_t out() const { return (padded() - span()) / stride + 1; }
};

// Depth, height, width.
using WindowAxes3d = std::array<WindowAxis, 3>;

// The positional names of the three axes' fields after a shape's own leading ones:
//   in:   d, h, w                      kernel: kd, kh, kw
//   rest: stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w,
//         pad_front, pad_top, pad_left, pad_back, pad_bottom, pad_right
const std::vector<std::string>& window3d_in_names();
const std::vector<std::string>& window3d_kernel_names();
const std::vector<std::string>& window3d_rest_names();

// Reads the axes' fields from `v` in the order of the names above: d,h,w at `in_at`, kd,kh,kw at
// `kernel_at`, the rest (12 values) at `rest_at`.
WindowAxes3d window3d_from_vector(const std::vector<int64_t>& v, size_t in_at, size_t kernel_at, size_t rest_at);
std::vector<int64_t> window3d_in(const WindowAxes3d& a);
std::vector<int64_t> window3d_kernel(const WindowAxes3d& a);
std::vector<int64_t> window3d_rest(const WindowAxes3d& a);

// The shorthands a user may type besides the positional names: stride=, dilation=, pad= set all
// three axes (each per-axis name overrides them); n and the strides and dilations default to 1,
// pads to 0. Every other field is required.
std::vector<std::string> window3d_shorthands();
WindowAxes3d window3d_from_named(const NamedExtents& e);

// fail() on the first field that makes no sense: a non-positive extent, stride or dilation, a
// negative pad, a (dilated) kernel larger than the padded input.
void check_window3d(const WindowAxes3d& a, const FailField& fail);

// Pieces of the named text: ",d=8,h=16,w=16", ",kd=3,kh=3,kw=3" and ",stride=2,pad=1" (defaults
// left out, three equal axes folded into the shorthand).
std::string window3d_in_text(const WindowAxes3d& a);
std::string window3d_kernel_text(const WindowAxes3d& a);
std::string window3d_rest_text(const WindowAxes3d& a);

}  // namespace tf::ops

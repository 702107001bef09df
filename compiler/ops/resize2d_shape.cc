#include "compiler/ops/resize2d_shape.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/window_extents.h"

namespace tf::ops {

const std::vector<std::string>& Resize2dShape::names() {
  // clang-format off
  static const std::vector<std::string> n = {
      "n",           "c",           "h",           "w",       "oh",     "ow",     "mode",   "coord",
      "nearest",     "scale_h_num", "scale_h_den", "scale_w_num", "scale_w_den", "roi_den", "roi_y0", "roi_x0",
      "roi_y1",      "roi_x1",      "extrapolation_num", "extrapolation_den"};
  // clang-format on
  return n;
}

Resize2dShape Resize2dShape::from_vector(const std::vector<int64_t>& v) {
  if (v.size() != names().size()) {
    throw CompileError("resize2d takes " + std::to_string(names().size()) + " extents, got " +
                       std::to_string(v.size()));
  }
  Resize2dShape s;
  int64_t* fields[] = {&s.n,
                       &s.c,
                       &s.h,
                       &s.w,
                       &s.oh,
                       &s.ow,
                       &s.mode,
                       &s.coord,
                       &s.nearest,
                       &s.scale_h_num,
                       &s.scale_h_den,
                       &s.scale_w_num,
                       &s.scale_w_den,
                       &s.roi_den,
                       &s.roi_y0,
                       &s.roi_x0,
                       &s.roi_y1,
                       &s.roi_x1,
                       &s.extrapolation_num,
                       &s.extrapolation_den};
  for (size_t i = 0; i < v.size(); ++i) *fields[i] = v[i];
  return s;
}

std::vector<int64_t> Resize2dShape::to_vector() const {
  return {n,
          c,
          h,
          w,
          oh,
          ow,
          mode,
          coord,
          nearest,
          scale_h_num,
          scale_h_den,
          scale_w_num,
          scale_w_den,
          roi_den,
          roi_y0,
          roi_x0,
          roi_y1,
          roi_x1,
          extrapolation_num,
          extrapolation_den};
}

Resize2dShape Resize2dShape::from_named(const std::map<std::string, int64_t>& named) {
  const NamedExtents e(named, names(), "resize2d", "c=64,h=32,w=32,oh=64,ow=64,mode=1");
  Resize2dShape s;
  s.n = e.get("n", 1);
  s.c = e.get("c", std::nullopt);
  s.h = e.get("h", std::nullopt);
  s.w = e.get("w", std::nullopt);
  s.oh = e.get("oh", std::nullopt);
  s.ow = e.get("ow", std::nullopt);
  s.mode = e.get("mode", 0);
  s.coord = e.get("coord", 0);
  s.nearest = e.get("nearest", 0);
  s.scale_h_num = e.get("scale_h_num", s.oh);
  s.scale_h_den = e.get("scale_h_den", s.h);
  s.scale_w_num = e.get("scale_w_num", s.ow);
  s.scale_w_den = e.get("scale_w_den", s.w);
  s.roi_den = e.get("roi_den", 1);
  s.roi_y0 = e.get("roi_y0", 0);
  s.roi_x0 = e.get("roi_x0", 0);
  s.roi_y1 = e.get("roi_y1", s.roi_den);
  s.roi_x1 = e.get("roi_x1", s.roi_den);
  s.extrapolation_num = e.get("extrapolation_num", 0);
  s.extrapolation_den = e.get("extrapolation_den", 1);
  return s;
}

void Resize2dShape::check(const std::string& op) const {
  const FailField fail = shape_field_failure(op, named());
  check_positive_extents({{"n", n},
                          {"c", c},
                          {"h", h},
                          {"w", w},
                          {"oh", oh},
                          {"ow", ow},
                          {"scale_h_num", scale_h_num},
                          {"scale_w_num", scale_w_num}},
                         fail);
  // Denominators of float32 values reach 2^149 in principle; 2^62 covers every scale and roi a
  // model writes (|x| >= 2^-38 with a 24-bit mantissa).
  const int64_t big = int64_t{1} << 62;
  for (const auto& [field, value] : ExtentFields{{"scale_h_den", scale_h_den},
                                                 {"scale_w_den", scale_w_den},
                                                 {"roi_den", roi_den},
                                                 {"extrapolation_den", extrapolation_den}}) {
    if (value <= 0) fail(field, "= " + std::to_string(value) + " must be positive");
    if (value > big) fail(field, "= " + std::to_string(value) + " is absurdly large");
  }
  if (mode == static_cast<int64_t>(ResizeMode::Cubic))
    fail("mode", "= 2 (cubic) is not supported: nearest (0) or linear (1)");
  if (mode != 0 && mode != 1) fail("mode", "= " + std::to_string(mode) + " must be 0 (nearest) or 1 (linear)");
  if (coord < 0 || coord > 6) {
    fail("coord",
         "= " + std::to_string(coord) +
             " must be 0 half_pixel, 1 half_pixel_symmetric, 2 pytorch_half_pixel, 3 align_corners, 4 asymmetric, "
             "5 tf_crop_and_resize or 6 tf_half_pixel_for_nn");
  }
  if (nearest < 0 || nearest > 3) {
    fail("nearest",
         "= " + std::to_string(nearest) + " must be 0 round_prefer_floor, 1 round_prefer_ceil, 2 floor or 3 ceil");
  }
}

std::string Resize2dShape::named() const {
  auto field = [](const char* name, int64_t v) { return std::string(",") + name + "=" + std::to_string(v); };
  std::string t = "n=" + std::to_string(n) + ",c=" + std::to_string(c) + ",h=" + std::to_string(h) +
                  ",w=" + std::to_string(w) + ",oh=" + std::to_string(oh) + ",ow=" + std::to_string(ow);
  if (mode) t += field("mode", mode);
  if (coord) t += field("coord", coord);
  if (nearest) t += field("nearest", nearest);
  if (scale_h_num != oh || scale_h_den != h) t += field("scale_h_num", scale_h_num) + field("scale_h_den", scale_h_den);
  if (scale_w_num != ow || scale_w_den != w) t += field("scale_w_num", scale_w_num) + field("scale_w_den", scale_w_den);
  if (roi_den != 1 || roi_y0 || roi_x0 || roi_y1 != roi_den || roi_x1 != roi_den) {
    t += field("roi_den", roi_den) + field("roi_y0", roi_y0) + field("roi_x0", roi_x0) + field("roi_y1", roi_y1) +
         field("roi_x1", roi_x1);
  }
  if (extrapolation_num || extrapolation_den != 1) {
    t += field("extrapolation_num", extrapolation_num) + field("extrapolation_den", extrapolation_den);
  }
  return t;
}

double ResizeAxis::source(int64_t x) const {
  const double xr = static_cast<double>(x), length = scale * static_cast<double>(in);
  switch (coord) {
    case ResizeCoord::HalfPixel: return (xr + 0.5) / scale - 0.5;
    case ResizeCoord::HalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out) / length, center = static_cast<double>(in) / 2;
      return center * (1 - adjustment) + (xr + 0.5) / scale - 0.5;
    }
    case ResizeCoord::PytorchHalfPixel: return out > 1 ? (xr + 0.5) / scale - 0.5 : 0.0;
    case ResizeCoord::AlignCorners: return length == 1 ? 0.0 : xr * static_cast<double>(in - 1) / (length - 1);
    case ResizeCoord::Asymmetric: return xr / scale;
    case ResizeCoord::TfCropAndResize: {
      const double start = roi_start * static_cast<double>(in - 1);
      if (length == 1) return (roi_end - roi_start) * static_cast<double>(in - 1) / 2 + start;
      return xr * (roi_end - roi_start) * static_cast<double>(in - 1) / (length - 1) + start;
    }
    case ResizeCoord::TfHalfPixelForNn: return (xr + 0.5) / scale;
  }
  return 0;
}

namespace {

ResizeAxis axis(const Resize2dShape& s, int64_t in, int64_t out, int64_t num, int64_t den, int64_t roi0, int64_t roi1) {
  ResizeAxis a;
  a.in = in, a.out = out;
  a.scale = static_cast<double>(num) / static_cast<double>(den);
  a.roi_start = static_cast<double>(roi0) / static_cast<double>(s.roi_den);
  a.roi_end = static_cast<double>(roi1) / static_cast<double>(s.roi_den);
  a.coord = static_cast<ResizeCoord>(s.coord);
  return a;
}

// The neighbour below (or at) a source coordinate and the weight of the one above it, ONNX's way:
// nearest picks one of the two by its rounding mode; indices clamp to the edge.
struct Taps {
  int64_t i0, i1;
  double frac;
};
Taps taps_at(double x, int64_t in, const Resize2dShape& s) {
  const double f = std::floor(x), r = x - f;
  int64_t lo = static_cast<int64_t>(f);
  if (s.mode == static_cast<int64_t>(ResizeMode::Nearest)) {
    bool up = false;
    switch (static_cast<ResizeNearest>(s.nearest)) {
      case ResizeNearest::RoundPreferFloor: up = r > 0.5; break;
      case ResizeNearest::RoundPreferCeil: up = r >= 0.5; break;
      case ResizeNearest::Floor: up = false; break;
      case ResizeNearest::Ceil: up = r > 0; break;
    }
    lo += up ? 1 : 0;
    const int64_t i = std::clamp<int64_t>(lo, 0, in - 1);
    return {i, i, 0.0};
  }
  return {std::clamp<int64_t>(lo, 0, in - 1), std::clamp<int64_t>(lo + 1, 0, in - 1), r};
}

}  // namespace

ResizeAxis resize_axis_h(const Resize2dShape& s) {
  return axis(s, s.h, s.oh, s.scale_h_num, s.scale_h_den, s.roi_y0, s.roi_y1);
}
ResizeAxis resize_axis_w(const Resize2dShape& s) {
  return axis(s, s.w, s.ow, s.scale_w_num, s.scale_w_den, s.roi_x0, s.roi_x1);
}

void resize2d_reference(const Resize2dShape& s, const float* input, std::vector<float>* output,
                        std::vector<float>* tolerance) {
  const ResizeAxis ay = resize_axis_h(s), ax = resize_axis_w(s);
  const bool crop = s.coord == static_cast<int64_t>(ResizeCoord::TfCropAndResize);
  const double extrapolation = static_cast<double>(s.extrapolation_num) / static_cast<double>(s.extrapolation_den);
  output->assign(static_cast<size_t>(s.n * s.c * s.oh * s.ow), 0.0f);
  tolerance->assign(output->size(), 0.0f);
  for (int64_t y = 0; y < s.oh; ++y) {
    const double sy = ay.source(y);
    const Taps ty = taps_at(sy, s.h, s);
    for (int64_t x = 0; x < s.ow; ++x) {
      const double sx = ax.source(x);
      const Taps tx = taps_at(sx, s.w, s);
      const bool outside =
          crop && (sy < 0 || sy > static_cast<double>(s.h - 1) || sx < 0 || sx > static_cast<double>(s.w - 1));
      for (int64_t plane = 0; plane < s.n * s.c; ++plane) {
        const float* in = input + plane * s.h * s.w;
        const size_t at = static_cast<size_t>((plane * s.oh + y) * s.ow + x);
        if (outside) {
          (*output)[at] = static_cast<float>(extrapolation);
          continue;
        }
        const double a = in[ty.i0 * s.w + tx.i0], b = in[ty.i0 * s.w + tx.i1];
        const double c = in[ty.i1 * s.w + tx.i0], d = in[ty.i1 * s.w + tx.i1];
        const double top = a * (1 - tx.frac) + b * tx.frac, bottom = c * (1 - tx.frac) + d * tx.frac;
        const double v = top * (1 - ty.frac) + bottom * ty.frac;
        (*output)[at] = static_cast<float>(v);
        // Weights rounded to float32 and three rounded blends, relative to the magnitudes blended.
        const double mag = std::max({std::fabs(a), std::fabs(b), std::fabs(c), std::fabs(d)});
        (*tolerance)[at] = static_cast<float>(12 * kUnitRoundoff * mag + 1e-30);
      }
    }
  }
}

}  // namespace tf::ops

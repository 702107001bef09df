// resize2d's extents (ONNX Resize / Upsample over the last two axes of NCHW): the positional form
// a workload key stores, the named form a user types (`c=64,h=32,w=32,oh=64,ow=64,mode=1`), the
// checks that refuse nonsense naming the field, and the double-precision reference.
//
// Every real-valued attribute is an exact rational of two extents, so a key stays integer,
// readable for the usual values and exact for any float32: a float32 is m * 2^e, which an
// importer writes as the reduced fraction (2.0 -> 2/1, 0.6f -> 5033165/8388608). With `sizes`
// the scale is oh/h (the default when scale_h_num/den are left out), as ONNX computes it.
//   scale_h = scale_h_num / scale_h_den            (ONNX scales[2]; scale_w likewise, scales[3])
//   roi     = roi_y0, roi_x0, roi_y1, roi_x1 over roi_den  (ONNX roi [.., y0, x0, .., y1, x1];
//             only tf_crop_and_resize reads it)
//   extrapolation_value = extrapolation_num / extrapolation_den
// The kernel computes source coordinates in double precision from these, as ONNX's reference
// does, so nearest-neighbour ties round the same way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tf::ops {

enum class ResizeMode : int64_t { Nearest = 0, Linear = 1, Cubic = 2 };
enum class ResizeCoord : int64_t {
  HalfPixel = 0,
  HalfPixelSymmetric = 1,
  PytorchHalfPixel = 2,
  AlignCorners = 3,
  Asymmetric = 4,
  TfCropAndResize = 5,
  TfHalfPixelForNn = 6
};
enum class ResizeNearest : int64_t { RoundPreferFloor = 0, RoundPreferCeil = 1, Floor = 2, Ceil = 3 };

struct Resize2dShape {
  int64_t n = 1, c = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t mode = 0, coord = 0, nearest = 0;
  int64_t scale_h_num = 0, scale_h_den = 0, scale_w_num = 0, scale_w_den = 0;
  int64_t roi_den = 1, roi_y0 = 0, roi_x0 = 0, roi_y1 = 1, roi_x1 = 1;
  int64_t extrapolation_num = 0, extrapolation_den = 1;

  static const std::vector<std::string>& names();
  static Resize2dShape from_vector(const std::vector<int64_t>& v);
  std::vector<int64_t> to_vector() const;
  // c,h,w,oh,ow required; the rest default as the members say, the scales to oh/h and ow/w.
  static Resize2dShape from_named(const std::map<std::string, int64_t>& named);

  // Throws tf::CompileError naming the first field that makes no sense; cubic is refused by name.
  void check(const std::string& op) const;
  std::string named() const;
};

// One axis's source coordinate as ONNX's reference computes it (double precision).
struct ResizeAxis {
  int64_t in = 0, out = 0;
  double scale = 1;  // num / den, rounded once
  double roi_start = 0, roi_end = 1;
  ResizeCoord coord = ResizeCoord::HalfPixel;
  double source(int64_t x) const;
};
ResizeAxis resize_axis_h(const Resize2dShape& s);
ResizeAxis resize_axis_w(const Resize2dShape& s);

void resize2d_reference(const Resize2dShape& s, const float* input, std::vector<float>* output,
                        std::vector<float>* tolerance);

}  // namespace tf::ops

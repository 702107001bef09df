// Resize (10, 11, 13, 18, 19) and Upsample (7, 9, 10) on NCHW, as the resize2d kernel. Every version
// normalizes to one canonical Resize node reading X alone, its attributes the kernel's extents
// beyond n,c,h,w (compiler/ops/resize2d_shape.h): the output size, mode, coordinate transform,
// nearest rounding, and the scales, roi and extrapolation value as exact fractions of the float32
// values the model holds. Scales, sizes and roi must be constants: shapes are static.
//
// The older ops have no coordinate_transformation_mode or nearest_mode: they compute asymmetric
// coordinates, and nearest rounds down when upsampling and up when downsampling (what ONNX
// Runtime does for them). Cubic, antialiasing and resizing N or C are refused by name.
#include <cmath>
#include <set>

#include "compiler/ops/resize2d_shape.h"
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;
using Fraction = std::pair<int64_t, int64_t>;  // numerator, denominator

const std::map<std::string, ops::ResizeCoord> kCoords = {{"half_pixel", ops::ResizeCoord::HalfPixel},
                                                         {"half_pixel_symmetric", ops::ResizeCoord::HalfPixelSymmetric},
                                                         {"pytorch_half_pixel", ops::ResizeCoord::PytorchHalfPixel},
                                                         {"align_corners", ops::ResizeCoord::AlignCorners},
                                                         {"asymmetric", ops::ResizeCoord::Asymmetric},
                                                         {"tf_crop_and_resize", ops::ResizeCoord::TfCropAndResize},
                                                         {"tf_half_pixel_for_nn", ops::ResizeCoord::TfHalfPixelForNn}};
const std::map<std::string, ops::ResizeNearest> kNearest = {
    {"round_prefer_floor", ops::ResizeNearest::RoundPreferFloor},
    {"round_prefer_ceil", ops::ResizeNearest::RoundPreferCeil},
    {"floor", ops::ResizeNearest::Floor},
    {"ceil", ops::ResizeNearest::Ceil}};

// The canonical node's attributes: resize2d's extents after n, c, h, w.
std::vector<std::string> kernel_fields() {
  const auto& names = ops::Resize2dShape::names();
  return {names.begin() + 4, names.end()};
}

bool old_semantics(const Node& n, const OpVersion& v) { return n.op == "Upsample" || v.since < 11; }

template <typename Map>
std::optional<std::string> known_value(const Node& n, const std::string& attr, const Map& values) {
  if (!n.has(attr)) return std::nullopt;
  const std::string v = n.attr_string(attr, "");
  if (values.count(v)) return std::nullopt;
  std::string known;
  for (const auto& [name, _] : values) known += (known.empty() ? "" : ", ") + name;
  return "attribute '" + attr + "' = '" + v + "' is not one of " + known;
}

std::optional<std::string> check(const Node& n, const OpVersion& v) {
  const std::string mode = n.attr_string("mode", "nearest");
  if (mode == "cubic") return "attribute 'mode' = 'cubic' is not supported (nearest, linear)";
  if (mode != "nearest" && mode != "linear") return "attribute 'mode' = '" + mode + "' is not one of nearest, linear";
  if (auto why = known_value(n, "coordinate_transformation_mode", kCoords)) return why;
  if (auto why = known_value(n, "nearest_mode", kNearest)) return why;
  if (n.attr_int("antialias", 0) != 0) return "attribute 'antialias' = 1 is not supported";
  const std::string policy = n.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    return "attribute 'keep_aspect_ratio_policy' = '" + policy + "' is not one of stretch, not_larger, not_smaller";
  }
  if (n.op == "Upsample" && v.since < 9 && !n.has("scales")) return "attribute 'scales' is missing";
  return std::nullopt;
}

// A float32 as the reduced fraction it is exactly (m * 2^e): what resize2d's extents carry.
Fraction exact_fraction(const Node& n, float f, const std::string& what) {
  if (!std::isfinite(f)) fail(n, what + " = " + std::to_string(f) + " is not finite");
  int e = 0;
  const double m = std::frexp(static_cast<double>(f), &e);
  auto num = static_cast<int64_t>(std::ldexp(m, 24));
  e -= 24;
  if (num == 0) return {0, 1};
  while (e < 0 && num % 2 == 0) num /= 2, ++e;
  if (e > 38 || e < -62) fail(n, what + " = " + std::to_string(f) + " is out of the range resize2d takes");
  return e >= 0 ? Fraction{num << e, 1} : Fraction{num, int64_t{1} << -e};
}

// Input i as float32 values when the model gives it (an empty tensor is no value); it must be a
// constant.
std::optional<std::vector<float>> constant_floats(const Graph& g, const Node& n, size_t i, const std::string& what) {
  if (!g.input_present(n, i)) return std::nullopt;
  const Tensor* t = g.constant(n.inputs[i]);
  if (!t) fail(n, "input '" + what + "' must be a constant: tunefarm plans static shapes");
  if (t->dtype != DType::Float32) fail(n, "input '" + what + "' must be float32");
  if (t->size() == 0) return std::nullopt;
  return t->f32;
}

// The axes scales, sizes and roi list (Resize 18's `axes`, else all four), each in 0..3.
std::vector<int64_t> resized_axes(const Node& n) {
  if (!n.has("axes")) return {0, 1, 2, 3};
  std::vector<int64_t> axes;
  std::set<int64_t> seen;
  for (int64_t a : n.attr_ints("axes", {})) {
    const int64_t axis = normalize_axis(a, 4, n, "axes");
    if (!seen.insert(axis).second)
      fail(n, "attribute 'axes' = " + rules::ints_text(n.attr_ints("axes", {})) + " repeats an axis");
    axes.push_back(axis);
  }
  return axes;
}

struct Plan {
  Shape out;                    // per axis of X
  std::vector<Fraction> scale;  // per axis of X
};

void require_count(const Node& n, const std::string& what, size_t got, size_t want) {
  if (got != want)
    fail(n, "input '" + what + "' has " + std::to_string(got) + " values for " + std::to_string(want) + " axes");
}

// Output extents and scales from `scales`: out = floor(in * scale).
Plan from_scales(const Node& n, const Shape& x, const std::vector<int64_t>& axes, const std::vector<float>& scales) {
  require_count(n, "scales", scales.size(), axes.size());
  Plan p{x, std::vector<Fraction>(4, Fraction{1, 1})};
  for (size_t i = 0; i < axes.size(); ++i) {
    if (!(scales[i] > 0))
      fail(n, "scale " + std::to_string(scales[i]) + " of axis " + std::to_string(axes[i]) + " is not positive");
    p.scale[axes[i]] = exact_fraction(n, scales[i], "scale of axis " + std::to_string(axes[i]));
    p.out[axes[i]] = static_cast<int64_t>(std::floor(static_cast<double>(scales[i]) * static_cast<double>(x[axes[i]])));
  }
  return p;
}

// Output extents and scales from `sizes`: the sizes themselves (scale out/in), or under Resize 18's
// keep_aspect_ratio_policy one scale for every listed axis, the smallest (not_larger) or largest
// (not_smaller) of sizes/in, and out = round(scale * in), halves up.
Plan from_sizes(const Node& n, const Shape& x, const std::vector<int64_t>& axes, const std::vector<int64_t>& sizes) {
  require_count(n, "sizes", sizes.size(), axes.size());
  Plan p{x, std::vector<Fraction>(4, Fraction{1, 1})};
  const std::string policy = n.attr_string("keep_aspect_ratio_policy", "stretch");
  Fraction keep{0, 1};
  for (size_t i = 0; i < axes.size(); ++i) {
    if (sizes[i] <= 0)
      fail(n, "size " + std::to_string(sizes[i]) + " of axis " + std::to_string(axes[i]) + " is not positive");
    const Fraction r{sizes[i], x[axes[i]]};
    const bool smaller = r.first * keep.second < keep.first * r.second;
    if (i == 0 || (policy == "not_larger" && smaller) || (policy == "not_smaller" && !smaller)) keep = r;
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t in = x[axes[i]];
    if (policy == "stretch") {
      p.scale[axes[i]] = {sizes[i], in};
      p.out[axes[i]] = sizes[i];
    } else {
      p.scale[axes[i]] = keep;
      p.out[axes[i]] = (2 * keep.first * in + keep.second) / (2 * keep.second);
    }
  }
  return p;
}

// The source region tf_crop_and_resize reads, [y0, x0, y1, x1] over one denominator (the largest:
// every one is a power of two).
std::vector<int64_t> crop_region(const Node& n, const std::vector<int64_t>& axes,
                                 const std::optional<std::vector<float>>& roi) {
  std::vector<Fraction> f = {{0, 1}, {0, 1}, {1, 1}, {1, 1}};
  if (roi) {
    require_count(n, "roi", roi->size(), 2 * axes.size());
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] < 2) continue;
      f[axes[i] - 2] = exact_fraction(n, (*roi)[i], "roi start of axis " + std::to_string(axes[i]));
      f[axes[i]] = exact_fraction(n, (*roi)[axes.size() + i], "roi end of axis " + std::to_string(axes[i]));
    }
  }
  int64_t den = 1;
  for (const auto& x : f) den = std::max(den, x.second);
  std::vector<int64_t> out = {den};
  for (const auto& x : f) {
    const int64_t factor = den / x.second;
    int64_t num = 0;
    if (__builtin_mul_overflow(x.first, factor, &num))
      fail(n, "input 'roi' holds a value out of the range resize2d takes");
    out.push_back(num);
  }
  return out;
}

int64_t nearest_rounding(const Node& n, const OpVersion& v, const Plan& p) {
  if (n.attr_string("mode", "nearest") != "nearest") return 0;
  if (!old_semantics(n, v))
    return static_cast<int64_t>(kNearest.at(n.attr_string("nearest_mode", "round_prefer_floor")));
  bool up = false, down = false;
  for (int axis = 2; axis < 4; ++axis) {
    up = up || p.scale[axis].first > p.scale[axis].second;
    down = down || p.scale[axis].first < p.scale[axis].second;
  }
  if (up && down)
    fail(n, "nearest resizing up along one axis and down along the other is not supported at this version");
  return static_cast<int64_t>(down ? ops::ResizeNearest::Ceil : ops::ResizeNearest::Floor);
}

Plan plan_of(const Graph& g, const Node& n, const OpVersion& v, const Shape& x, const std::vector<int64_t>& axes) {
  if (n.op == "Upsample" && v.since < 9) {
    const auto* scales = std::get_if<std::vector<double>>(&n.attrs.at("scales"));
    if (!scales) fail(n, "attribute 'scales' is not a list of floats");
    return from_scales(n, x, axes, std::vector<float>(scales->begin(), scales->end()));
  }
  const size_t scales_at = old_semantics(n, v) ? 1 : 2;
  const auto scales = constant_floats(g, n, scales_at, "scales");
  const Tensor* sizes = !old_semantics(n, v) && g.input_present(n, 3) ? g.constant(n.inputs[3]) : nullptr;
  const bool has_sizes = (sizes && sizes->size() > 0) || (!sizes && !old_semantics(n, v) && g.input_present(n, 3));
  if (scales && has_sizes) fail(n, "both 'scales' and 'sizes' are given; ONNX takes one");
  if (has_sizes) return from_sizes(n, x, axes, rules::constant_ints(g, n, 3, "sizes"));
  if (!scales) fail(n, "neither 'scales' nor 'sizes' is given");
  return from_scales(n, x, axes, *scales);
}

std::vector<Node> normalize(Graph& g, Node n, const OpVersion& v) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() != 4)
    fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; only 4-D (NCHW) inputs are supported");
  const std::vector<int64_t> axes = resized_axes(n);
  const Plan p = plan_of(g, n, v, x.shape, axes);
  for (int axis = 0; axis < 2; ++axis) {
    if (p.out[axis] != x.shape[axis] || p.scale[axis].first != p.scale[axis].second) {
      fail(n, "resizing axis " + std::to_string(axis) + " (" + (axis ? "C" : "N") + ") is not supported: only H and W");
    }
  }
  const bool old = old_semantics(n, v);
  const auto coord =
      old ? ops::ResizeCoord::Asymmetric : kCoords.at(n.attr_string("coordinate_transformation_mode", "half_pixel"));
  const auto roi = !old && coord == ops::ResizeCoord::TfCropAndResize ? constant_floats(g, n, 1, "roi") : std::nullopt;
  const std::vector<int64_t> region = crop_region(n, axes, roi);
  const Fraction extrapolation = exact_fraction(n, static_cast<float>(n.attr_float("extrapolation_value", 0.0)),
                                                "attribute 'extrapolation_value'");
  const std::vector<int64_t> values = {p.out[2],
                                       p.out[3],
                                       n.attr_string("mode", "nearest") == "linear" ? 1 : 0,
                                       static_cast<int64_t>(coord),
                                       nearest_rounding(n, v, p),
                                       p.scale[2].first,
                                       p.scale[2].second,
                                       p.scale[3].first,
                                       p.scale[3].second,
                                       region[0],
                                       region[1],
                                       region[2],
                                       region[3],
                                       region[4],
                                       extrapolation.first,
                                       extrapolation.second};
  Node r;
  r.name = n.name;
  r.op = "Resize";
  r.inputs = {n.inputs[0]};
  r.outputs = {n.outputs.at(0)};
  const std::vector<std::string> fields = kernel_fields();
  for (size_t i = 0; i < fields.size(); ++i) r.attrs[fields[i]] = values.at(i);
  return {std::move(r)};
}

lowering::Named extents(const Graph& g, const Node& n) {
  const Shape& x = rules::in(g, n, 0).shape;
  lowering::Named e = {{"n", x.at(0)}, {"c", x.at(1)}, {"h", x.at(2)}, {"w", x.at(3)}};
  for (const auto& field : kernel_fields()) {
    if (!n.has(field)) fail(n, "is not normalized: attribute '" + field + "' is missing");
    e[field] = n.attr_int(field, 0);
  }
  return e;
}

OpDef resize_op(const std::string& name, std::vector<int> versions, std::vector<std::string> attributes) {
  OpDef d;
  d.name = name;
  d.versions = std::move(versions);
  d.attributes = std::move(attributes);
  d.check = check;
  d.normalize = normalize;
  // The kernel's own checks name what makes no sense (no output rows, a scale out of range).
  d.infer = [](Graph& g, const Node& n) {
    const KernelCall c = lowering::named_call(n, "resize2d", extents(g, n), lowering::with_output({n.inputs.at(0)}, n));
    rules::set_out(g, n, 0, DType::Float32, c.arg_shapes.back());
  };
  d.lower = [](const Graph& g, const Node& n) {
    return lowering::call(
        lowering::named_call(n, "resize2d", extents(g, n), lowering::with_output({n.inputs.at(0)}, n)));
  };
  return d;
}

}  // namespace

void add_resize_ops(std::vector<OpDef>& ops) {
  ops.push_back(resize_op("Resize", {10, 11, 13, 18, 19},
                          {"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
                           "extrapolation_value", "keep_aspect_ratio_policy", "mode", "nearest_mode"}));
  ops.push_back(resize_op("Upsample", {7, 9, 10}, {"mode", "scales"}));  // 10: deprecated, as 9
}

}  // namespace tf::graph

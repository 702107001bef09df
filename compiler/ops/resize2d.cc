// resize2d (ONNX Resize / Upsample on NCHW's last two axes): nearest with ONNX's four rounding
// modes, or bilinear, under every coordinate_transformation_mode but cubic's.
//
// The kernel first computes, per output row and per output column, the source indices (and the
// bilinear weight, and for tf_crop_and_resize whether the coordinate falls outside) into small
// tables of oh and ow entries: the coordinate math runs in double precision, as ONNX's reference,
// so ties round alike, and a row's or a column's math is done once instead of once per channel.
// The planes then read through the tables: a row's source indices are scalars, a column's are a
// vector of indices, so each output vector is one gather per tap (one for nearest, four for
// bilinear). Indices are clamped to the edge as ONNX's edge padding does.
#include <algorithm>

#include "compiler/ops/model_operators.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/resize2d_shape.h"

namespace tf::ops {
namespace {

using ir::Expr;
using te::Tensor;

const ir::DataType kF64(ir::DataType::Float, 64);
Expr f64(double v) { return ir::make_float(v, kF64); }

// The source coordinate of output index x, in double precision, in the order ONNX's reference
// computes it (ResizeAxis::source is the same on the host).
Expr source_coordinate(const ResizeAxis& a, Expr x) {
  Expr xr = ir::make_cast(kF64, x);
  const double length = a.scale * static_cast<double>(a.in), in1 = static_cast<double>(a.in - 1);
  switch (a.coord) {
    case ResizeCoord::HalfPixel: return (xr + f64(0.5)) / f64(a.scale) - f64(0.5);
    case ResizeCoord::HalfPixelSymmetric: {
      const double adjustment = static_cast<double>(a.out) / length, center = static_cast<double>(a.in) / 2;
      return f64(center * (1 - adjustment)) + (xr + f64(0.5)) / f64(a.scale) - f64(0.5);
    }
    case ResizeCoord::PytorchHalfPixel: return a.out > 1 ? (xr + f64(0.5)) / f64(a.scale) - f64(0.5) : f64(0);
    case ResizeCoord::AlignCorners: return length == 1 ? f64(0) : xr * f64(in1) / f64(length - 1);
    case ResizeCoord::Asymmetric: return xr / f64(a.scale);
    case ResizeCoord::TfCropAndResize: {
      const double start = a.roi_start * in1;
      if (length == 1) return f64((a.roi_end - a.roi_start) * in1 / 2 + start);
      return xr * f64(a.roi_end - a.roi_start) * f64(in1) / f64(length - 1) + f64(start);
    }
    case ResizeCoord::TfHalfPixelForNn: return (xr + f64(0.5)) / f64(a.scale);
  }
  return f64(0);
}

Expr clamp_index(Expr i, int64_t in) { return ir::min(ir::max(i, Expr(int64_t{0})), Expr(in - 1)); }

// The tables of one axis: the source index below (or the nearest one), the one above, the weight
// of the one above (bilinear) and whether the coordinate lies inside the input (crop mode).
struct AxisTables {
  Tensor i0, i1, frac, inside;
};

AxisTables axis_tables(const Resize2dShape& s, const ResizeAxis& a, const std::string& name) {
  const bool linear = s.mode == static_cast<int64_t>(ResizeMode::Linear);
  const bool crop = s.coord == static_cast<int64_t>(ResizeCoord::TfCropAndResize);
  auto floor_of = [&](const te::Indices& i) {
    return ir::make_call(ir::Intrinsic::Floor, {source_coordinate(a, i[0])});
  };
  AxisTables t;
  t.i0 = te::compute({a.out},
                     [&](const te::Indices& i) {
                       Expr x = source_coordinate(a, i[0]);
                       Expr f = ir::make_call(ir::Intrinsic::Floor, {x});
                       Expr lo = ir::make_cast(ir::DataType::int64(), f);
                       if (linear) return clamp_index(lo, a.in);
                       Expr r = x - f;
                       Expr up;
                       switch (static_cast<ResizeNearest>(s.nearest)) {
                         case ResizeNearest::RoundPreferFloor: up = r > f64(0.5); break;
                         case ResizeNearest::RoundPreferCeil: up = r >= f64(0.5); break;
                         case ResizeNearest::Floor: return clamp_index(lo, a.in);
                         case ResizeNearest::Ceil: up = r > f64(0); break;
                       }
                       return clamp_index(lo + ir::make_select(up, Expr(int64_t{1}), Expr(int64_t{0})), a.in);
                     },
                     name + ".index", {"o"});
  if (linear) {
    t.i1 = te::compute({a.out},
                       [&](const te::Indices& i) {
                         return clamp_index(ir::make_cast(ir::DataType::int64(), floor_of(i)) + Expr(int64_t{1}), a.in);
                       },
                       name + ".index1", {"o"});
    t.frac = te::compute({a.out},
                         [&](const te::Indices& i) {
                           return ir::make_cast(ir::DataType::float32(), source_coordinate(a, i[0]) - floor_of(i));
                         },
                         name + ".frac", {"o"});
  }
  if (crop) {
    t.inside = te::compute({a.out},
                           [&](const te::Indices& i) {
                             Expr x = source_coordinate(a, i[0]);
                             Expr in = ir::logical_and(x >= f64(0), x <= f64(static_cast<double>(a.in - 1)));
                             return ir::make_select(in, Expr(int64_t{1}), Expr(int64_t{0}));
                           },
                           name + ".inside", {"o"});
  }
  return t;
}

class Resize2d : public Operator {
 public:
  std::string name() const override { return "resize2d"; }
  std::string description() const override {
    return "Y[N,C,OH,OW] = ONNX Resize of X[N,C,H,W] over H and W: nearest or bilinear, any coordinate transformation";
  }
  std::vector<std::string> shape_names() const override { return Resize2dShape::names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Resize2dShape::from_named(named).to_vector();
  }
  void check_shape(const std::vector<int64_t>& s) const override { shape(s).check(name()); }
  std::string shape_text(const std::vector<int64_t>& s) const override { return shape(s).named(); }
  int64_t flops(const std::vector<int64_t>& s) const override {
    const Resize2dShape r = shape(s);
    return r.n * r.c * r.oh * r.ow * (r.mode == static_cast<int64_t>(ResizeMode::Linear) ? 6 : 1);
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const Resize2dShape r = shape(s);
    return {{r.n, r.c, r.h, r.w}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    const Resize2dShape r = shape(s);
    return {r.n, r.c, r.oh, r.ow};
  }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    const Resize2dShape r = shape(s);
    space::ConfigSpace cs;
    cs.add_knob("vectorize", {Json(true), Json(false)}, 0, "output columns as vectors (gathered reads)");
    add_parallel_knob(cs, r.n * r.c, r.n * r.c * r.oh * r.ow, "run the planes on the thread pool");
    return cs;
  }
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    resize2d_reference(shape(s), in[0], out, tol);
  }

 private:
  static Resize2dShape shape(const std::vector<int64_t>& s) { return Resize2dShape::from_vector(s); }
};

Scheduled Resize2d::schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const {
  const Resize2dShape r = shape(s);
  const int64_t lanes = std::max(1, t.float32_lanes());
  const auto f32 = ir::DataType::float32();
  const bool linear = r.mode == static_cast<int64_t>(ResizeMode::Linear);
  Tensor x = te::placeholder({r.n, r.c, r.h, r.w}, f32, "X");
  const AxisTables ty = axis_tables(r, resize_axis_h(r), "rows"), tx = axis_tables(r, resize_axis_w(r), "cols");
  const float extrapolation =
      static_cast<float>(static_cast<double>(r.extrapolation_num) / static_cast<double>(r.extrapolation_den));

  Tensor out = te::compute({r.n, r.c, r.oh, r.ow},
                           [&](const te::Indices& i) {
                             Expr y0 = ty.i0(i[2]), x0 = tx.i0(i[3]);
                             Expr v = x(i[0], i[1], y0, x0);
                             if (linear) {
                               Expr y1 = ty.i1(i[2]), x1 = tx.i1(i[3]), fy = ty.frac(i[2]), fx = tx.frac(i[3]);
                               Expr top = v * (Expr(1.0f) - fx) + x(i[0], i[1], y0, x1) * fx;
                               Expr bottom = x(i[0], i[1], y1, x0) * (Expr(1.0f) - fx) + x(i[0], i[1], y1, x1) * fx;
                               v = top * (Expr(1.0f) - fy) + bottom * fy;
                             }
                             if (ty.inside.op()) {
                               Expr inside = ir::logical_and(ty.inside(i[2]) != Expr(int64_t{0}),
                                                             tx.inside(i[3]) != Expr(int64_t{0}));
                               v = ir::make_select(inside, v, Expr(extrapolation));
                             }
                             return v;
                           },
                           "Y", {"n", "c", "y", "x"});

  Scheduled result = make_scheduled({x}, out);
  schedule::Stage& o = result.schedule->operator[](out);
  ir::IterVar planes = o.fuse(o.axis(0), o.axis(1));
  if (cfg.get_bool("vectorize") && lanes > 1) {
    auto [x_o, x_i] = o.split(o.axis(3), lanes);
    o.vectorize(x_i);
  }
  if (cfg.get_bool("parallel")) o.parallel(planes);
  return result;
}

}  // namespace

void register_resize_operators(Registry& r) { r.add(std::make_unique<Resize2d>()); }

}  // namespace tf::ops

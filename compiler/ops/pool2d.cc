// max_pool2d and avg_pool2d on NCHW. The window's reduction runs in a register tile of output
// columns (vector-wide, computed inside the output's column loop, the window loops outside the
// lanes), so stride-1 windows read contiguous vectors. With padding, the input is first copied into
// a padded buffer (the lowest value or 0 around it), which keeps the window loop free of bounds
// checks. max_pool2d_u8 pools a quantized model's uint8 activations (max commutes with the
// monotonic dequantization, so the pool of the integers is the integer of the pool). avg_pool2d
// divides by the whole window (count_include_pad=1) or by the inputs the window covers (0, ONNX's
// default).
//
// The padded copy is a stage of its own, computed whole before the windows (one extra pass over
// the input): attached inside the channel loop, bound inference would not see through the window
// stage that reads it and would copy every plane per channel.
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/ops/model_operators.h"
#include "compiler/ops/pool2d_shape.h"

namespace tf::ops {
namespace {

using ir::Expr;

class Pool2d : public Operator {
 public:
  explicit Pool2d(bool is_max, ir::DataType dtype = ir::DataType::float32()) : max_(is_max), dtype_(dtype) {}

  std::string name() const override {
    return std::string(max_ ? "max_pool2d" : "avg_pool2d") + (dtype_.is_float() ? "" : "_u8");
  }
  std::string description() const override {
    return max_ ? "Y[n,c,y,x] = max over the r x s window of X (NCHW), padding never wins"
                : "Y[n,c,y,x] = mean over the r x s window of X (NCHW); count_include_pad 1 counts padding";
  }
  std::vector<std::string> shape_names() const override { return Pool2dShape::names(!max_); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Pool2dShape::from_named(named, !max_, name()).to_vector(!max_);
  }
  void check_shape(const std::vector<int64_t>& s) const override { shape(s).check(name(), !max_); }
  std::string shape_text(const std::vector<int64_t>& s) const override { return shape(s).named(!max_); }
  int64_t flops(const std::vector<int64_t>& s) const override {
    const Pool2dShape p = shape(s);
    return p.n * p.c * p.oh() * p.ow() * p.r * p.s;
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const Pool2dShape p = shape(s);
    return {{p.n, p.c, p.h, p.w}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    const Pool2dShape p = shape(s);
    return {p.n, p.c, p.oh(), p.ow()};
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    const Pool2dShape p = shape(s);
    const int64_t lanes = std::max(1, t.float32_lanes());
    space::ConfigSpace cs;
    cs.add_knob("vectors", {Json(1), Json(2)}, 0, "output-column vectors per register tile");
    add_parallel_knob(cs, p.c, p.c * p.oh() * p.ow() * p.r * p.s, "run the channels on the thread pool");
    (void)lanes;
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const Pool2dShape p = shape(s);
    const int64_t OH = p.oh(), OW = p.ow();
    out->assign(static_cast<size_t>(p.n * p.c * OH * OW), 0.0f);
    tol->assign(out->size(), 0.0f);
    for (int64_t b = 0; b < p.n * p.c; ++b) {
      const float* x = in[0] + b * p.h * p.w;
      for (int64_t y = 0; y < OH; ++y) {
        for (int64_t xo = 0; xo < OW; ++xo) {
          double acc = max_ ? -INFINITY : 0, mag = 0;
          int64_t count = 0;
          for (int64_t ky = 0; ky < p.r; ++ky) {
            const int64_t iy = y * p.stride + ky - p.pad_top;
            for (int64_t kx = 0; kx < p.s; ++kx) {
              const int64_t ix = xo * p.stride + kx - p.pad_left;
              if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
              const double v = x[iy * p.w + ix];
              acc = max_ ? std::max(acc, v) : acc + v;
              mag += std::fabs(v);
              ++count;
            }
          }
          const size_t at = static_cast<size_t>((b * OH + y) * OW + xo);
          if (max_) {
            (*out)[at] = static_cast<float>(acc);
            (*tol)[at] = 1e-37f;  // a maximum is exact
            continue;
          }
          const double divisor = p.count_include_pad ? static_cast<double>(p.r * p.s) : static_cast<double>(count);
          const double v = acc / divisor;
          (*out)[at] = static_cast<float>(v);
          (*tol)[at] = static_cast<float>(summation_bound(static_cast<double>(p.r * p.s)) * mag / divisor +
                                          3 * kUnitRoundoff * std::fabs(v) + 1e-37);
        }
      }
    }
  }

 private:
  Pool2dShape shape(const std::vector<int64_t>& s) const { return Pool2dShape::from_vector(s, !max_); }
  bool max_;
  ir::DataType dtype_;
};

Scheduled Pool2d::schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const {
  const Pool2dShape p = shape(s);
  const int64_t lanes = std::max(1, t.float32_lanes()), OH = p.oh(), OW = p.ow();
  const auto f32 = ir::DataType::float32();
  const Expr pad_value = !max_               ? ir::make_float(0.0, f32)
                         : dtype_.is_float() ? ir::make_float(-std::numeric_limits<double>::infinity(), f32)
                                             : ir::make_const(dtype_, 0);  // uint8's lowest
  Scheduled result;
  te::Tensor x = te::placeholder({p.n, p.c, p.h, p.w}, dtype_, "X");
  result.inputs = {x};

  // What the window reads at padded coordinates (row, col) of plane (b, c).
  te::Tensor padded;
  std::function<Expr(Expr, Expr, Expr, Expr)> source = [&](Expr b, Expr c, Expr row, Expr col) {
    return x(b, c, row, col);
  };
  if (p.padded()) {
    const int64_t hp = p.h + p.pad_top + p.pad_bottom, wp = p.w + p.pad_left + p.pad_right;
    padded = te::compute({p.n, p.c, hp, wp},
                         [&](const te::Indices& i) {
                           Expr row = i[2] - p.pad_top, col = i[3] - p.pad_left;
                           Expr inside = ir::logical_and(ir::logical_and(row >= Expr(0), row < Expr(p.h)),
                                                         ir::logical_and(col >= Expr(0), col < Expr(p.w)));
                           Expr clamped = x(i[0], i[1], ir::min(ir::max(row, Expr(0)), Expr(p.h - 1)),
                                            ir::min(ir::max(col, Expr(0)), Expr(p.w - 1)));
                           return ir::make_select(inside, clamped, pad_value);
                         },
                         "X.padded", {"n", "c", "hp", "wp"});
    source = [&](Expr b, Expr c, Expr row, Expr col) { return padded(b, c, row, col); };
  }
  ir::IterVar kr = te::reduce_axis(p.r, "kr"), ks = te::reduce_axis(p.s, "ks");
  te::Tensor acc = te::compute({p.n, p.c, OH, OW},
                               [&](const te::Indices& i) {
                                 Expr v = source(i[0], i[1], i[2] * p.stride + ir::to_expr(kr->var),
                                                 i[3] * p.stride + ir::to_expr(ks->var));
                                 return ir::make_reduce(max_ ? ir::ReduceKind::Max : ir::ReduceKind::Sum, v, {kr, ks});
                               },
                               "Y.acc", {"n", "c", "y", "x"});
  te::Tensor out = te::compute({p.n, p.c, OH, OW},
                               [&](const te::Indices& i) {
                                 if (max_) return acc(i);
                                 if (p.count_include_pad)
                                   return acc(i) * Expr(static_cast<float>(1.0 / static_cast<double>(p.r * p.s)));
                                 // The inputs a window covers: its rows and columns clipped to the image.
                                 Expr y0 = i[2] * p.stride - p.pad_top, x0 = i[3] * p.stride - p.pad_left;
                                 Expr rows = ir::min(y0 + p.r, Expr(p.h)) - ir::max(y0, Expr(0));
                                 Expr cols = ir::min(x0 + p.s, Expr(p.w)) - ir::max(x0, Expr(0));
                                 return acc(i) / ir::make_cast(f32, rows * cols);
                               },
                               "Y", {"n", "c", "y", "x"});
  result.outputs = {out};
  result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
  schedule::Schedule& sch = *result.schedule;

  schedule::Stage& o = sch[out];
  const int64_t width = lanes * cfg.get_int("vectors");
  auto [x_o, x_i] = o.split(o.axis(3), width);
  auto vector_columns = [&](schedule::Stage& st, const ir::IterVar& col) {
    if (lanes == 1) return;
    auto [v_o, v_i] = st.split(col, lanes);
    st.unroll(v_o);
    st.vectorize(v_i);
  };
  vector_columns(o, x_i);
  schedule::Stage& a = sch[acc];
  a.compute_at(o, x_o);
  a.reorder({a.reduce_axis(0), a.reduce_axis(1), a.axis(3)});
  vector_columns(a, a.axis(3));
  if (cfg.get_bool("parallel")) o.parallel(o.axis(1));
  if (padded.op()) {
    schedule::Stage& pc = sch[padded];
    if (cfg.get_bool("parallel")) pc.parallel(pc.axis(1));
    vector_columns(pc, pc.axis(3));
  }
  return result;
}

}  // namespace

std::unique_ptr<Operator> make_max_pool2d() { return std::make_unique<Pool2d>(true); }
std::unique_ptr<Operator> make_max_pool2d_u8() { return std::make_unique<Pool2d>(true, ir::DataType::uint8()); }
std::unique_ptr<Operator> make_avg_pool2d() { return std::make_unique<Pool2d>(false); }

}  // namespace tf::ops

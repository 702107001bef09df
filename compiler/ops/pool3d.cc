// max_pool3d and avg_pool3d on NCDHW: a stride, dilation and pads per axis; avg_pool3d divides by
// the whole window (count_include_pad=1) or by the inputs the window covers (0, ONNX's default).
// As pool2d: the window's reduction runs in a register tile of output columns (vectorized, the
// window loops outside the lanes), and with padding the input is first copied into a padded
// buffer (-inf or 0 around it), computed whole before the windows, so the window loop has no
// bounds tests.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/pad3d.h"
#include "compiler/ops/window_axes3d.h"

namespace tf::ops {
namespace {

using ir::Expr;

struct Pool3dShape {
  int64_t n = 1, c = 0;
  WindowAxes3d ax;
  int64_t count_include_pad = 0;  // avg_pool3d only

  // n, c, d, h, w, kd, kh, kw, window3d_rest_names(), and for avg_pool3d count_include_pad.
  static std::vector<std::string> names(bool with_count) {
    std::vector<std::string> v = {"n", "c"};
    for (const auto& group : {window3d_in_names(), window3d_kernel_names(), window3d_rest_names()})
      v.insert(v.end(), group.begin(), group.end());
    if (with_count) v.push_back("count_include_pad");
    return v;
  }
  static Pool3dShape from_vector(const std::vector<int64_t>& v, bool with_count) {
    if (v.size() != names(with_count).size())
      throw CompileError("pool3d takes " + std::to_string(names(with_count).size()) + " extents");
    Pool3dShape p;
    p.n = v[0], p.c = v[1];
    p.ax = window3d_from_vector(v, 2, 5, 8);
    if (with_count) p.count_include_pad = v[20];
    return p;
  }
  std::vector<int64_t> to_vector(bool with_count) const {
    std::vector<int64_t> v = {n, c};
    for (const auto& group : {window3d_in(ax), window3d_kernel(ax), window3d_rest(ax)})
      v.insert(v.end(), group.begin(), group.end());
    if (with_count) v.push_back(count_include_pad);
    return v;
  }
  static Pool3dShape from_named(const std::map<std::string, int64_t>& named, bool with_count, const std::string& op) {
    std::vector<std::string> known = names(with_count);
    for (const auto& x : window3d_shorthands()) known.push_back(x);
    const NamedExtents e(named, known, op, "n=1,c=16,d=8,h=32,w=32,kd=2,kh=2,kw=2,stride=2");
    Pool3dShape p;
    p.n = e.get("n", 1);
    p.c = e.get("c", std::nullopt);
    p.ax = window3d_from_named(e);
    if (with_count) p.count_include_pad = e.get("count_include_pad", 0);
    return p;
  }

  std::vector<int64_t> input_shape() const { return {n, c, ax[0].in, ax[1].in, ax[2].in}; }
  std::vector<int64_t> output_shape() const { return {n, c, ax[0].out(), ax[1].out(), ax[2].out()}; }
  int64_t window() const { return ax[0].kernel * ax[1].kernel * ax[2].kernel; }
  bool padded() const {
    return std::any_of(ax.begin(), ax.end(), [](const WindowAxis& a) { return a.pad_begin || a.pad_end; });
  }
  std::string named(bool with_count) const {
    std::string t = "n=" + std::to_string(n) + ",c=" + std::to_string(c) + window3d_in_text(ax) +
                    window3d_kernel_text(ax) + window3d_rest_text(ax);
    if (with_count && count_include_pad) t += ",count_include_pad=1";
    return t;
  }
  void check(const std::string& op, bool with_count) const {
    const FailField fail = shape_field_failure(op, named(with_count));
    check_positive_extents({{"n", n}, {"c", c}}, fail);
    check_window3d(ax, fail);
    // A window that could sit on padding alone has no input to pool.
    const char* begin[3] = {"pad_front", "pad_top", "pad_left"};
    const char* end[3] = {"pad_back", "pad_bottom", "pad_right"};
    for (int a = 0; a < 3; ++a) {
      if (ax[a].pad_begin >= ax[a].span())
        fail(begin[a], "must be smaller than the window (" + std::to_string(ax[a].span()) + ")");
      if (ax[a].pad_end >= ax[a].span())
        fail(end[a], "must be smaller than the window (" + std::to_string(ax[a].span()) + ")");
    }
    if (with_count && count_include_pad != 0 && count_include_pad != 1) {
      fail("count_include_pad", "= " + std::to_string(count_include_pad) + " must be 0 or 1");
    }
  }
};

// The taps of window `o` along axis `a` that fall inside the input: j in [0, kernel) with
// 0 <= o * stride - pad_begin + j * dilation < in.
Expr covered_taps(const WindowAxis& a, Expr o) {
  Expr start = o * Expr(a.stride) - Expr(a.pad_begin);
  Expr first = ir::max(Expr(int64_t{0}), Expr(int64_t{0}) - ir::floordiv(start, Expr(a.dilation)));
  Expr last = ir::min(Expr(a.kernel - 1), ir::floordiv(Expr(a.in - 1) - start, Expr(a.dilation)));
  return ir::max(last - first + Expr(int64_t{1}), Expr(int64_t{0}));
}

class Pool3d : public Operator {
 public:
  explicit Pool3d(bool is_max) : max_(is_max) {}

  std::string name() const override { return max_ ? "max_pool3d" : "avg_pool3d"; }
  std::string description() const override {
    return max_ ? "Y[n,c,z,y,x] = max over the kd x kh x kw window of X (NCDHW), padding never wins"
                : "Y[n,c,z,y,x] = mean over the kd x kh x kw window of X (NCDHW); count_include_pad 1 counts padding";
  }
  std::vector<std::string> shape_names() const override { return Pool3dShape::names(!max_); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Pool3dShape::from_named(named, !max_, name()).to_vector(!max_);
  }
  void check_shape(const std::vector<int64_t>& s) const override { shape(s).check(name(), !max_); }
  std::string shape_text(const std::vector<int64_t>& s) const override { return shape(s).named(!max_); }
  int64_t flops(const std::vector<int64_t>& s) const override {
    const Pool3dShape p = shape(s);
    return element_count(p.output_shape()) * p.window();
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {shape(s).input_shape()};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return shape(s).output_shape(); }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    const Pool3dShape p = shape(s);
    space::ConfigSpace cs;
    cs.add_knob("vectors", {Json(1), Json(2)}, 0, "output-column vectors per register tile");
    add_parallel_knob(cs, p.c, flops(s), "run the channels on the thread pool");
    return cs;
  }
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override;

 private:
  Pool3dShape shape(const std::vector<int64_t>& s) const { return Pool3dShape::from_vector(s, !max_); }
  bool max_;
};

void Pool3d::reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                       std::vector<float>* tol) const {
  const Pool3dShape p = shape(s);
  const auto o = p.output_shape();
  const WindowAxis &az = p.ax[0], &ay = p.ax[1], &ax = p.ax[2];
  out->assign(static_cast<size_t>(element_count(o)), 0.0f);
  tol->assign(out->size(), 0.0f);
  size_t at = 0;
  for (int64_t plane = 0; plane < p.n * p.c; ++plane) {
    const float* x = in[0] + plane * az.in * ay.in * ax.in;
    for (int64_t z = 0; z < o[2]; ++z) {
      for (int64_t y = 0; y < o[3]; ++y) {
        for (int64_t xo = 0; xo < o[4]; ++xo, ++at) {
          double acc = max_ ? -INFINITY : 0, mag = 0;
          int64_t count = 0;
          for (int64_t kz = 0; kz < az.kernel; ++kz) {
            const int64_t iz = z * az.stride + kz * az.dilation - az.pad_begin;
            for (int64_t ky = 0; ky < ay.kernel; ++ky) {
              const int64_t iy = y * ay.stride + ky * ay.dilation - ay.pad_begin;
              for (int64_t kx = 0; kx < ax.kernel; ++kx) {
                const int64_t ix = xo * ax.stride + kx * ax.dilation - ax.pad_begin;
                if (iz < 0 || iz >= az.in || iy < 0 || iy >= ay.in || ix < 0 || ix >= ax.in) continue;
                const double v = x[(iz * ay.in + iy) * ax.in + ix];
                acc = max_ ? std::max(acc, v) : acc + v;
                mag += std::fabs(v);
                ++count;
              }
            }
          }
          if (max_) {
            (*out)[at] = static_cast<float>(acc);
            (*tol)[at] = 1e-37f;  // a maximum is exact
            continue;
          }
          const double divisor = static_cast<double>(p.count_include_pad ? p.window() : count);
          const double v = acc / divisor;
          (*out)[at] = static_cast<float>(v);
          (*tol)[at] = static_cast<float>(summation_bound(static_cast<double>(p.window())) * mag / divisor +
                                          3 * kUnitRoundoff * std::fabs(v) + 1e-37);
        }
      }
    }
  }
}

Scheduled Pool3d::schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const {
  const Pool3dShape p = shape(s);
  const int64_t lanes = std::max(1, t.float32_lanes());
  const auto& ax = p.ax;
  const auto f32 = ir::DataType::float32();
  const Expr pad_value = ir::make_float(max_ ? -std::numeric_limits<double>::infinity() : 0.0, f32);
  te::Tensor x = te::placeholder(p.input_shape(), f32, "X");

  te::Tensor padded;
  std::function<Expr(const std::vector<Expr>&)> source = [&](const std::vector<Expr>& i) { return x(i); };
  if (p.padded()) {
    padded = pad_ncdhw(x, p.n, p.c, ax, pad_value, "X.padded", {"n", "c", "zp", "yp", "xp"});
    source = [&](const std::vector<Expr>& i) { return padded(i); };
  }
  ir::IterVar k[3] = {te::reduce_axis(ax[0].kernel, "kz"), te::reduce_axis(ax[1].kernel, "ky"),
                      te::reduce_axis(ax[2].kernel, "kx")};
  const auto out_shape = p.output_shape();
  te::Tensor acc = te::compute(
      out_shape,
      [&](const te::Indices& i) {
        std::vector<Expr> at = {i[0], i[1]};
        for (int a = 0; a < 3; ++a)
          at.push_back(i[2 + a] * Expr(ax[a].stride) + ir::to_expr(k[a]->var) * Expr(ax[a].dilation));
        return ir::make_reduce(max_ ? ir::ReduceKind::Max : ir::ReduceKind::Sum, source(at), {k[0], k[1], k[2]});
      },
      "Y.acc", {"n", "c", "z", "y", "x"});
  te::Tensor out = te::compute(out_shape,
                               [&](const te::Indices& i) {
                                 if (max_) return acc(i);
                                 if (p.count_include_pad)
                                   return acc(i) * Expr(static_cast<float>(1.0 / static_cast<double>(p.window())));
                                 Expr count =
                                     covered_taps(ax[0], i[2]) * covered_taps(ax[1], i[3]) * covered_taps(ax[2], i[4]);
                                 return acc(i) / ir::make_cast(f32, count);
                               },
                               "Y", {"n", "c", "z", "y", "x"});

  Scheduled result = make_scheduled({x}, out);
  schedule::Schedule& sch = *result.schedule;
  const bool parallel = cfg.get_bool("parallel");
  auto vector_columns = [&](schedule::Stage& st, const ir::IterVar& col) {
    if (lanes == 1) return;
    auto [v_o, v_i] = st.split(col, lanes);
    st.unroll(v_o);
    st.vectorize(v_i);
  };
  schedule::Stage& o = sch[out];
  auto [x_o, x_i] = o.split(o.axis(4), lanes * cfg.get_int("vectors"));
  vector_columns(o, x_i);
  schedule::Stage& a = sch[acc];
  a.compute_at(o, x_o);
  a.reorder({a.reduce_axis(0), a.reduce_axis(1), a.reduce_axis(2), a.axis(4)});
  vector_columns(a, a.axis(4));
  if (parallel) o.parallel(o.fuse(o.axis(0), o.axis(1)));
  if (padded.op()) {
    schedule::Stage& pc = sch[padded];
    if (parallel) pc.parallel(pc.fuse(pc.axis(0), pc.axis(1)));
    vector_columns(pc, pc.axis(4));
  }
  return result;
}

}  // namespace

std::unique_ptr<Operator> make_max_pool3d() { return std::make_unique<Pool3d>(true); }
std::unique_ptr<Operator> make_avg_pool3d() { return std::make_unique<Pool3d>(false); }

}  // namespace tf::ops

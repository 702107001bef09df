// lrn (ONNX's LRN) across channels on [n, c, spatial] (NCHW with the spatial axes flattened):
//   Y[n,c,s] = X[n,c,s] / (bias + alpha / size * sum of X[n,c',s]^2 over c' in
//              [c - floor((size-1)/2), c + ceil((size-1)/2)] within [0, c))^beta
// The window sum is a stage vectorized over spatial (the lanes), the window loop outside them;
// the power a constant-exponent pow. alpha, beta and bias are extents in units of 1e-9
// (ONNX's defaults 1e-4, 0.75 and 1 are alpha_e9=100000, beta_e9=750000000, bias_e9=1000000000).
#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {
namespace {

using ir::Expr;

struct LrnParams {
  int64_t size, lo;  // the window and how far it reaches below c
  double alpha, beta, bias;
};
LrnParams params(const std::vector<int64_t>& s) {
  return {s[3], (s[3] - 1) / 2, static_cast<double>(s[4]) * 1e-9, static_cast<double>(s[5]) * 1e-9,
          static_cast<double>(s[6]) * 1e-9};
}

class Lrn : public Operator {
 public:
  std::string name() const override { return "lrn"; }
  std::string description() const override {
    return "Y = X / (bias + alpha/size * window sum of X^2 across channels)^beta (alpha_e9, beta_e9, bias_e9 in units of 1e-9)";
  }
  std::vector<std::string> shape_names() const override {
    return {"n", "c", "spatial", "size", "alpha_e9", "beta_e9", "bias_e9"};
  }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    std::map<std::string, int64_t> d = named;
    d.emplace("n", 1), d.emplace("alpha_e9", 100000), d.emplace("beta_e9", 750000000), d.emplace("bias_e9", 1000000000);
    return Operator::shape_from_named(d);
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    const auto names = shape_names();
    for (size_t k = 0; k < names.size(); ++k) {
      const int64_t lo = names[k] == "alpha_e9" ? 0 : 1, hi = names[k] == "size" ? 4096 : int64_t{1} << 40;
      if (s[k] < lo || s[k] > hi) {
        throw CompileError("op 'lrn': extent " + names[k] + " = " + std::to_string(s[k]) + " is outside [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
      }
    }
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    const auto names = shape_names();
    std::string t;
    for (size_t k = 0; k < names.size(); ++k) t += (k ? "," : "") + names[k] + "=" + std::to_string(s[k]);
    return t;
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return s[0] * s[1] * s[2] * (2 * s[3] + 8); }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1], s[2]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], s[2]}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return row_config_space(s[0] * s[1], s[2], t);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t N = s[0], C = s[1], S = s[2], lanes = std::max(1, t.float32_lanes());
    const LrnParams p = params(s);
    te::Tensor x = te::placeholder({N, C, S}, ir::DataType::float32(), "X");
    ir::IterVar k = te::reduce_axis(p.size, "k");
    te::Tensor sq =
        te::compute({N, C, S},
                    [&](const te::Indices& i) {
                      const Expr c = i[1] - p.lo + ir::to_expr(k->var);
                      const Expr v = x(i[0], ir::min(ir::max(c, Expr(int64_t{0})), Expr(C - 1)), i[2]);
                      const Expr inside = ir::logical_and(c >= Expr(int64_t{0}), c < Expr(C));
                      return ir::make_reduce(ir::ReduceKind::Sum, ir::make_select(inside, v * v, Expr(0.0f)), {k});
                    },
                    "window_sq", {"n", "c", "s"});
    const Expr scale(static_cast<float>(p.alpha / static_cast<double>(p.size))), bias(static_cast<float>(p.bias));
    te::Tensor y =
        te::compute({N, C, S},
                    [&](const te::Indices& i) {
                      return x(i[0], i[1], i[2]) * ir::pow_const(bias + scale * sq(i[0], i[1], i[2]), -p.beta);
                    },
                    "Y", {"n", "c", "s"});
    Scheduled result = make_scheduled({x}, y);
    schedule::Schedule& sch = *result.schedule;
    const bool parallel = cfg.get_bool("parallel");
    for (const te::Tensor& t_ : {sq, y}) {
      schedule::Stage& st = sch[t_];
      const ir::IterVar planes = st.fuse(st.axis(0), st.axis(1));
      auto [o, in] = st.split(st.axis(2), lanes);
      if (t_.compute_op()->reduce_axis.size() == 1) st.reorder({planes, o, st.reduce_axis(0), in});
      st.vectorize(in);
      if (parallel) st.parallel(planes);
    }
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t N = s[0], C = s[1], S = s[2];
    const LrnParams p = params(s);
    const double u = kUnitRoundoff, g = summation_bound(static_cast<double>(p.size));
    const double alpha = static_cast<float>(p.alpha / static_cast<double>(p.size)), bias = static_cast<float>(p.bias);
    out->assign(static_cast<size_t>(N * C * S), 0.0f);
    tol->assign(out->size(), 0.0f);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t sp = 0; sp < S; ++sp) {
          double sum = 0;
          for (int64_t cc = std::max<int64_t>(0, c - p.lo); cc <= std::min(C - 1, c - p.lo + p.size - 1); ++cc) {
            const double v = in[0][(n * C + cc) * S + sp];
            sum += v * v;
          }
          const int64_t at = (n * C + c) * S + sp;
          const double base = bias + alpha * sum, x = in[0][at];
          const double y = x * std::pow(base, -p.beta);
          // The base within (g + 2u) alpha sum + u base; pow moves a relative error by beta and
          // adds its own (3 |beta log base| + 4 ulp); the product one more.
          const double base_rel = ((g + 2 * u) * alpha * sum + u * base) / base;
          const double e = std::fabs(y) * (p.beta * base_rel + (3 * std::fabs(p.beta * std::log(base)) + 5) * u);
          (*out)[at] = static_cast<float>(y);
          (*tol)[at] = static_cast<float>(2 * e + 1e-37);
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_lrn() { return std::make_unique<Lrn>(); }

}  // namespace tf::ops

// ElementwiseExpr::evaluate: the exact value in double and a bound on the float32 kernel's error.
// Each result's error is what its operands' errors can change it by, plus its own rounding: for
// the polynomial functions, the ulps codegen/fast_math.h and ir/math_composite.h document, plus
// one for margin. Where the kernel is defined to give NaN (sin, cos, tan beyond 2^28), so is the
// value. Operand errors across a discontinuity (floor, a comparison, where's condition) give the
// jump.
#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/codegen/fast_math.h"
#include "compiler/error.h"
#include "compiler/ops/elementwise_expr.h"
#include "compiler/ops/elementwise_kinds.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/tensor_dtype.h"

namespace tf::ops {
namespace {

using Kind = ElementwiseKind;
using Bounded = ElementwiseExpr::Bounded;
using Fn = std::function<double(double)>;

// `ulps` float32 ulps of v, generously (an ulp at v is at most 2^-23 |v|).
double rounded(double v, double ulps) { return std::isinf(v) ? 0 : ulps * kUnitRoundoff * 2 * std::fabs(v); }

// The largest change of a monotonic-by-pieces f over [v - e, v + e] (0 included when crossed).
double spread(const Fn& f, double v, double e) {
  if (e == 0) return 0;
  const double fv = f(v);
  double worst = 0;
  for (double x : {v - e, v + e, (v - e < 0 && v + e > 0) ? 0.0 : v}) {
    const double fx = f(x);
    if (std::isnan(fx) != std::isnan(fv)) return INFINITY;
    if (!std::isnan(fx)) worst = std::max(worst, std::fabs(fx - fv));
  }
  return worst;
}

// The same over the box [a -+ ea] x [b -+ eb], for f monotonic in each operand by pieces.
double spread2(const std::function<double(double, double)>& f, const Bounded& a, const Bounded& b) {
  if (a.error == 0 && b.error == 0) return 0;
  const double fv = f(a.value, b.value);
  double worst = 0;
  for (double x : {a.value - a.error, a.value, a.value + a.error}) {
    for (double y : {b.value - b.error, b.value, b.value + b.error}) {
      const double fx = f(x, y);
      if (std::isnan(fx) != std::isnan(fv)) return INFINITY;
      if (!std::isnan(fx)) worst = std::max(worst, std::fabs(fx - fv));
    }
  }
  return worst;
}

// Whether the kernel may see the other side of v != 0.
bool truth_may_flip(const Bounded& a) { return a.error > 0 && std::fabs(a.value) <= a.error; }

double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }
double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }
double softsign(double x) { return std::isinf(x) ? std::copysign(1.0, x) : x / (1 + std::fabs(x)); }
double sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : x; }

// sin, cos, tan as the kernel defines them: NaN beyond the exact reduction's reach.
Bounded trig(const Fn& f, const Bounded& a, bool tangent) {
  if (!(std::fabs(a.value) <= codegen::fast_math::kTrigLimit)) return {NAN, 0};
  if (std::fabs(a.value) + a.error > codegen::fast_math::kTrigLimit) return {f(a.value), INFINITY};
  const double v = f(a.value);
  double moved = std::min(a.error, 2.0);  // sin and cos change by at most the change of x
  if (tangent) {
    auto pole = [](double x) { return std::floor(x / M_PI - 0.5); };
    moved = pole(a.value - a.error) != pole(a.value + a.error) ? INFINITY : spread(f, a.value, a.error);
  }
  return {v, moved + rounded(v, 2)};
}

Bounded pow_bounded(const Bounded& a, const Bounded& b) {
  const double v = std::pow(a.value, b.value);
  double ulps = 5 + 3 * std::fabs(b.value * std::log(std::fabs(a.value)));
  if (!std::isfinite(ulps)) ulps = 0;  // x is 0 or infinite, or y is: the result is 0, 1 or inf, exactly
  return {v, spread2([](double x, double y) { return std::pow(x, y); }, a, b) + rounded(v, ulps)};
}

// C's fmod (floor = false) or Python's % (floor = true), as ir/math_composite.h computes them.
Bounded mod_bounded(const Bounded& a, const Bounded& b, bool floor) {
  double r = std::fmod(a.value, b.value);
  if (floor && r != 0 && (r < 0) != (b.value < 0)) r += b.value;
  const double q = std::fabs(a.value / b.value);
  // Moving the operands moves r continuously, until it crosses an edge (0 or |b|) and jumps by |b|.
  double e = a.error + std::trunc(q) * b.error;
  const double to_edge = std::min(std::fabs(r), std::fabs(b.value) - std::fabs(r));
  if (e > 0 && to_edge <= e) e += std::fabs(b.value) + b.error;
  if (q >= 16777216.0) e += std::ldexp(std::fabs(a.value), -51) + 2 * std::fabs(b.value);
  return {r, e + (floor ? rounded(r, 1) : 0)};
}

Bounded compare(Kind kind, const Bounded& a, const Bounded& b) {
  double v = 0;
  switch (kind) {
    case Kind::Greater: v = a.value > b.value; break;
    case Kind::Less: v = a.value < b.value; break;
    case Kind::Equal: v = a.value == b.value; break;
    case Kind::GreaterOrEqual: v = a.value >= b.value; break;
    case Kind::LessOrEqual: v = a.value <= b.value; break;
    default: throw CompileError("elementwise: not a comparison");
  }
  const double slack = a.error + b.error;
  return {v, slack > 0 && std::fabs(a.value - b.value) <= slack ? 1.0 : 0.0};
}

Bounded logic(Kind kind, const Bounded& a, const Bounded& b) {
  const bool x = a.value != 0, y = b.value != 0;
  const double v = kind == Kind::And ? (x && y) : kind == Kind::Or ? (x || y) : (x != y);
  return {v, truth_may_flip(a) || truth_may_flip(b) ? 1.0 : 0.0};
}

Bounded unary_bounded(Kind kind, const Bounded& a, double p) {
  auto with = [&](const Fn& f, double ulps) -> Bounded {
    const double v = f(a.value);
    return {v, spread(f, a.value, a.error) + rounded(v, ulps)};
  };
  auto exact = [&](const Fn& f) { return with(f, 0); };
  switch (kind) {
    case Kind::Neg: return {-a.value, a.error};
    case Kind::Relu: return {std::max(a.value, 0.0), a.error};
    case Kind::Abs: return {std::fabs(a.value), a.error};
    case Kind::Sigmoid: return with(sigmoid, 4);
    case Kind::Erf: return with([](double x) { return std::erf(x); }, 4);
    case Kind::Tanh: return with([](double x) { return std::tanh(x); }, 4);
    case Kind::Sqrt: return with([](double x) { return std::sqrt(x); }, 1);
    case Kind::Exp: return with([](double x) { return std::exp(x); }, 3);
    case Kind::Log: return with([](double x) { return std::log(x); }, 3);
    case Kind::Floor: return exact([](double x) { return std::floor(x); });
    case Kind::Ceil: return exact([](double x) { return std::ceil(x); });
    case Kind::Round: return exact([](double x) { return std::nearbyint(x); });
    case Kind::Fence: return a;
    case Kind::Sign: return exact(sign);
    case Kind::Reciprocal: return with([](double x) { return 1 / x; }, 1);
    case Kind::Sin: return trig([](double x) { return std::sin(x); }, a, false);
    case Kind::Cos: return trig([](double x) { return std::cos(x); }, a, false);
    case Kind::Tan: return trig([](double x) { return std::tan(x); }, a, true);
    case Kind::Asin: return with([](double x) { return std::asin(x); }, 2);
    case Kind::Acos: return with([](double x) { return std::acos(x); }, 2);
    case Kind::Atan: return with([](double x) { return std::atan(x); }, 2);
    case Kind::Sinh: return with([](double x) { return std::sinh(x); }, 3);
    case Kind::Cosh: return with([](double x) { return std::cosh(x); }, 3);
    case Kind::Asinh: return with([](double x) { return std::asinh(x); }, 4);
    case Kind::Acosh: return with([](double x) { return std::acosh(x); }, 4);
    case Kind::Atanh: return with([](double x) { return std::atanh(x); }, 4);
    case Kind::Softplus: return with(softplus, 4);
    case Kind::Softsign: return with(softsign, 2.5);
    case Kind::Expm1: return with([](double x) { return std::expm1(x); }, 3);
    case Kind::Not: return {a.value == 0 ? 1.0 : 0.0, truth_may_flip(a) ? 1.0 : 0.0};
    case Kind::Pow: {
      const bool by_multiplies = std::fabs(p) <= 64 && 2 * p == std::floor(2 * p);
      double ulps = by_multiplies ? 2 + 2 * std::ceil(std::log2(std::fabs(p) + 1))
                                  : 4 + 3 * std::fabs(p * std::log(std::fabs(a.value)));
      if (!std::isfinite(ulps)) ulps = 0;  // x is 0 or infinite: so is the result, exactly
      return with([p](double x) { return std::pow(x, p); }, ulps);
    }
    default: throw CompileError("elementwise: unknown unary kind");
  }
}

Bounded binary_bounded(Kind kind, const Bounded& a, const Bounded& b) {
  double v = 0, e = 0;
  switch (kind) {
    case Kind::Add: v = a.value + b.value, e = a.error + b.error; break;
    case Kind::Sub: v = a.value - b.value, e = a.error + b.error; break;
    case Kind::Mul:
      v = a.value * b.value;
      e = std::fabs(a.value) * b.error + std::fabs(b.value) * a.error + a.error * b.error;
      break;
    case Kind::Div:
      v = a.value / b.value;
      e = std::fabs(b.value) > b.error ? (a.error + std::fabs(v) * b.error) / (std::fabs(b.value) - b.error) : INFINITY;
      break;
    case Kind::Max: v = std::max(a.value, b.value), e = std::max(a.error, b.error); break;
    case Kind::Min: v = std::min(a.value, b.value), e = std::max(a.error, b.error); break;
    case Kind::Pow: return pow_bounded(a, b);
    case Kind::Mod: return mod_bounded(a, b, true);
    case Kind::Fmod: return mod_bounded(a, b, false);
    case Kind::And:
    case Kind::Or:
    case Kind::Xor: return logic(kind, a, b);
    default: return compare(kind, a, b);
  }
  return {v, e + rounded(v, 1)};
}

Bounded where_bounded(const Bounded& c, const Bounded& a, const Bounded& b) {
  const Bounded& chosen = c.value != 0 ? a : b;
  if (!truth_may_flip(c)) return chosen;
  const double apart = std::fabs(a.value - b.value);
  return {chosen.value, std::isnan(apart) ? INFINITY : apart + std::max(a.error, b.error)};
}

}  // namespace

// A cast's value and error: an integer result may be off by what the operand's error can move it
// across; a float one rounds once (int64 beyond 2^24).
static Bounded cast_bounded(const Bounded& a, DType to) {
  switch (to) {
    case DType::Float32: return {round_to_float(a.value), a.error + kUnitRoundoff * 2 * std::fabs(a.value)};
    case DType::Float64: return a;  // the double the evaluation already holds
    case DType::Bool: {
      const auto f = [](double x) { return x != 0 ? 1.0 : 0.0; };
      return {f(a.value), a.error > 0 ? spread(f, a.value, a.error) : 0};
    }
    default: {
      const auto f = [](double x) { return std::trunc(x); };
      return {f(a.value), a.error > 0 ? spread(f, a.value, a.error) : 0};
    }
  }
}

ElementwiseExpr::Bounded ElementwiseExpr::evaluate(const std::vector<double>& in) const {
  if (kind == Kind::Input) return {in.at(static_cast<size_t>(input)), 0};
  if (kind == Kind::Constant) return {round_to_float(value), 0};
  std::vector<Bounded> x;
  for (const auto& a : args) x.push_back(a->evaluate(in));
  Bounded r;
  if (kind == Kind::Cast) {
    r = cast_bounded(x[0], to);
  } else if (kind == Kind::Clip) {
    r = {std::min(std::max(x[0].value, round_to_float(value)), round_to_float(value2)), x[0].error};
  } else if (kind == Kind::Where) {
    r = where_bounded(x[0], x[1], x[2]);
  } else if (x.size() == 1) {
    r = unary_bounded(kind, x[0], round_to_float(value));
  } else {
    r = binary_bounded(kind, x[0], x[1]);
  }
  if (std::isnan(r.error)) r.error = INFINITY;
  return r;
}

}  // namespace tf::ops

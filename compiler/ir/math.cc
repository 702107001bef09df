#include "compiler/ir/math.h"

#include <cmath>
#include <string>

namespace tf::ir {
namespace {

// x^n for n >= 1 by binary powering: about log2(n) multiplies.
Expr integer_power(const Expr& x, int64_t n) {
  Expr result, square = x;
  while (n > 0) {
    if (n & 1) result = result ? result * square : square;
    n >>= 1;
    if (n > 0) square = square * square;
  }
  return result;
}

Expr one_like(const Expr& x) { return make_const(x.type(), 1.0); }

}  // namespace

Expr exp(Expr x) { return make_call(Intrinsic::Exp, {std::move(x)}); }
Expr log(Expr x) { return make_call(Intrinsic::Log, {std::move(x)}); }
Expr sqrt(Expr x) { return make_call(Intrinsic::Sqrt, {std::move(x)}); }
Expr rsqrt(Expr x) { return make_call(Intrinsic::Rsqrt, {std::move(x)}); }
Expr tanh(Expr x) { return make_call(Intrinsic::Tanh, {std::move(x)}); }
Expr erf(Expr x) { return make_call(Intrinsic::Erf, {std::move(x)}); }
Expr sigmoid(Expr x) { return make_call(Intrinsic::Sigmoid, {std::move(x)}); }
Expr abs(Expr x) { return make_call(Intrinsic::Abs, {std::move(x)}); }
Expr floor(Expr x) { return make_call(Intrinsic::Floor, {std::move(x)}); }
Expr ceil(Expr x) { return make_call(Intrinsic::Ceil, {std::move(x)}); }
Expr round(Expr x) { return make_call(Intrinsic::Round, {std::move(x)}); }
Expr sin(Expr x) { return make_call(Intrinsic::Sin, {std::move(x)}); }
Expr cos(Expr x) { return make_call(Intrinsic::Cos, {std::move(x)}); }
Expr tan(Expr x) { return make_call(Intrinsic::Tan, {std::move(x)}); }
Expr asin(Expr x) { return make_call(Intrinsic::Asin, {std::move(x)}); }
Expr acos(Expr x) { return make_call(Intrinsic::Acos, {std::move(x)}); }
Expr atan(Expr x) { return make_call(Intrinsic::Atan, {std::move(x)}); }
Expr gelu(Expr x) { return make_call(Intrinsic::Gelu, {std::move(x)}); }
Expr fence(Expr x) { return make_call(Intrinsic::Fence, {std::move(x)}); }

Expr pow_const(Expr x, double p) {
  if (!std::isfinite(p)) throw CompileError("pow: the exponent must be finite, got " + std::to_string(p));
  if (!x || !x.type().is_float()) throw CompileError("pow: needs a float operand");
  if (p == 0) return one_like(x);
  const double twice = 2 * p;
  if (std::fabs(p) <= 64 && twice == std::floor(twice)) {
    const int64_t whole = static_cast<int64_t>(std::floor(std::fabs(p)));
    const bool half = std::fabs(p) != static_cast<double>(whole);
    Expr magnitude;
    if (whole > 0) magnitude = integer_power(x, whole);
    if (half) magnitude = magnitude ? magnitude * sqrt(x) : sqrt(x);
    if (p > 0) return magnitude;
    if (!half || whole > 0) return one_like(x) / magnitude;
    return rsqrt(x);
  }
  if (p == std::floor(p)) {
    // A large integer exponent: |x|^p, negated for a negative x and an odd p.
    Expr magnitude = exp(make_const(x.type(), p) * log(abs(x)));
    if (std::fmod(p, 2.0) == 0) return magnitude;
    return make_select(x < make_const(x.type(), 0.0), make_const(x.type(), 0.0) - magnitude, magnitude);
  }
  return exp(make_const(x.type(), p) * log(x));
}

}  // namespace tf::ir

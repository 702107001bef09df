// The polynomials (expm1 on [-1, 1], sinh below 1) are Chebyshev fits made by
// scripts/fit-polynomials.py, well below float32 rounding.
#include "compiler/ir/math_composite.h"

#include <initializer_list>
#include <limits>

#include "compiler/ir/math.h"

namespace tf::ir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLn2 = 0.69314718055994531;

Expr k(const Expr& like, double v) { return make_const(like.type(), v); }

// c[0] + c[1] t + c[2] t^2 + ... by Horner's rule.
Expr polynomial(const Expr& t, std::initializer_list<double> c) {
  const double* p = c.end() - 1;
  Expr r = k(t, *p);
  while (p != c.begin()) r = r * t + k(t, *--p);
  return r;
}

Expr to_double(const Expr& x) { return make_cast(DataType(DataType::Float, 64, x.type().lanes), x); }

// e^|a| / 2 for a >= 0 without overflowing early: beyond 88, e^(a - c) (e^c / 2), with c chosen so
// that e^c / 2 is within 3e-12 of a float (100140744) and a - c is exact.
Expr half_exp(const Expr& a) {
  constexpr double kC = 19.115234375, kHalfExpC = 100140744.0;
  const Expr big = a > k(a, 88.0);
  const Expr e = exp(make_select(big, a - k(a, kC), a));
  return make_select(big, e * k(a, kHalfExpC), e * k(a, 0.5));
}

// C's fmod in double: the quotient's truncation is the right integer while |x / y| < 2^29 (a
// double quotient cannot round across an integer there), and then x - q y is exact.
Expr fmod_double(const Expr& xd, const Expr& yd, bool float64_operands) {
  const Expr q = xd / yd;
  const Expr t = make_select(q < k(q, 0.0), ceil(q), floor(q));
  Expr r = xd - t * yd;
  if (float64_operands) {
    // Float64 operands (not widened float32 ones): x - t y rounds unless fused, and the rounded
    // quotient may have crossed an integer, leaving a remainder of the wrong sign one |y| away.
    // Both steps are exact (each result is a multiple of ulp(y) below |y|), for |x / y| < 2^52.
    r = make_call(Intrinsic::Fma, {k(t, 0.0) - t, yd, xd});
    const Expr crossed = logical_and(r != k(r, 0.0), make_binary(BinaryOp::NE, r < k(r, 0.0), xd < k(xd, 0.0)));
    r = make_select(crossed, make_select(xd < k(xd, 0.0), r - abs(yd), r + abs(yd)), r);
  }
  // An infinite divisor leaves a finite x as it is (x - 0 * inf would be NaN).
  return make_select(logical_and(abs(yd) == k(yd, kInf), abs(xd) < k(xd, kInf)), xd, r);
}

}  // namespace

Expr expm1(Expr x) {
  const Expr near = x + x * x *
                            polynomial(x, {0.49999999781421683, 0.16666666646842135, 0.04166673659523746,
                                           0.00833333967591706, 0.0013885396911807102, 0.00019838101968683888,
                                           2.535851224463976e-05, 2.8062802582276946e-06});
  return make_select(abs(x) <= k(x, 1.0), near, exp(x) - k(x, 1.0));
}

Expr log1p(Expr x) {
  // w - 1 is the part of x that 1 + x kept: log(w) / (w - 1) is the slope of log over exactly the
  // step taken, and x times it is log1p(x) to a few ulp (Goldberg's correction).
  const Expr w = k(x, 1.0) + x;
  const Expr corrected = log(w) * (x / (w - k(x, 1.0)));
  return make_select(w == k(x, 1.0), x, make_select(w == k(x, kInf), w, corrected));
}

Expr sinh(Expr x) {
  const Expr a = abs(x);
  const Expr u = x * x;
  const Expr near =
      x +
      x * u * polynomial(u, {0.16666666646842135, 0.00833333967591706, 0.00019838101968683888, 2.8062802582276946e-06});
  const Expr h = half_exp(a);
  // Below 88, h - 1 / (4h) (e^-|x| / 2); beyond, that term is below h's rounding.
  const Expr far = h - k(x, 0.25) / h;
  return make_select(a < k(x, 1.0), near, make_select(x < k(x, 0.0), k(x, 0.0) - far, far));
}

Expr cosh(Expr x) {
  const Expr h = half_exp(abs(x));
  return h + k(x, 0.25) / h;
}

Expr asinh(Expr x) {
  const Expr a = abs(x);
  const Expr a2 = a * a;
  const Expr mid = log1p(a + a2 / (k(x, 1.0) + sqrt(k(x, 1.0) + a2)));
  const Expr far = log(a) + k(x, kLn2);  // sqrt(a^2 + 1) = a to float precision
  const Expr m = make_select(a > k(x, 4096.0), far, mid);
  return make_select(x < k(x, 0.0), k(x, 0.0) - m, m);
}

Expr acosh(Expr x) {
  const Expr t = x - k(x, 1.0);  // exact for x in [0.5, 2^24]
  const Expr mid = log1p(t + sqrt(t * (t + k(x, 2.0))));
  const Expr far = log(x) + k(x, kLn2);
  return make_select(x < k(x, 1.0), k(x, kNaN), make_select(x > k(x, 4096.0), far, mid));
}

Expr atanh(Expr x) {
  const Expr a = abs(x);
  const Expr m = k(x, 0.5) * log1p((a + a) / (k(x, 1.0) - a));
  return make_select(x < k(x, 0.0), k(x, 0.0) - m, m);
}

Expr softplus(Expr x) { return max(x, k(x, 0.0)) + log1p(exp(k(x, 0.0) - abs(x))); }

Expr softsign(Expr x) {
  const Expr a = abs(x);
  return make_select(a == k(x, kInf), make_select(x > k(x, 0.0), k(x, 1.0), k(x, -1.0)), x / (k(x, 1.0) + a));
}

Expr sign(Expr x) { return make_select(x > k(x, 0.0), k(x, 1.0), make_select(x < k(x, 0.0), k(x, -1.0), x)); }

Expr pow(Expr x, Expr y) {
  const Expr ax = abs(x);
  const Expr m = exp(y * log(ax));
  const Expr integral = floor(y) == y;
  const Expr odd = logical_and(integral, y - k(y, 2.0) * floor(y * k(y, 0.5)) == k(y, 1.0));
  const Expr negative = make_select(integral, make_select(odd, k(x, 0.0) - m, m), k(x, kNaN));
  const Expr r = make_select(x < k(x, 0.0), negative, m);
  // x^0 = 1 and 1^y = 1 even for NaN; (-1)^+-inf = 1, where y log|x| is 0 * inf.
  const Expr one =
      logical_or(logical_or(y == k(y, 0.0), x == k(x, 1.0)), logical_and(ax == k(x, 1.0), abs(y) == k(y, kInf)));
  return make_select(one, k(x, 1.0), r);
}

Expr fmod(Expr x, Expr y) { return make_cast(x.type(), fmod_double(to_double(x), to_double(y), x.type().bits == 64)); }

Expr floor_mod(Expr x, Expr y) {
  const Expr yd = to_double(y);
  const Expr r = fmod_double(to_double(x), yd, x.type().bits == 64);
  const Expr zero = k(r, 0.0);
  const Expr differ = logical_and(r != zero, make_binary(BinaryOp::NE, r < zero, yd < zero));
  return make_cast(x.type(), make_select(differ, r + yd, r));
}

}  // namespace tf::ir

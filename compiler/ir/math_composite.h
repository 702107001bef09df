// Float32 functions composed of the intrinsics (math.h) and arithmetic: no codegen of their own,
// so they vectorize wherever their parts do and call no libm. Each is written to stay accurate
// where the textbook formula cancels or overflows; the bounds (float32 ulps against the exact
// result, measured in tests/elementwise_math_test.cc) hold over the whole float range unless said.
//
//   expm1     <= 2 ulp       a polynomial on [-1, 1], exp(x) - 1 outside
//   log1p     <= 3 ulp       log(1 + u) * u / ((1 + u) - 1), exact for tiny u
//   sinh      <= 2 ulp       a polynomial below 1; beyond 88 exp(|x| - c) * (e^c / 2), no early overflow
//   cosh      <= 2 ulp
//   asinh     <= 3 ulp       log1p(a + a^2 / (1 + sqrt(1 + a^2))), log(a) + ln 2 above 4096
//   acosh     <= 3 ulp       log1p(t + sqrt(t (t + 2))), t = x - 1: accurate next to 1; NaN below 1
//   atanh     <= 3 ulp       log1p(2a / (1 - a)) / 2; +-inf at +-1, NaN beyond
//   softplus  <= 3 ulp       max(x, 0) + log1p(exp(-|x|)): no overflow, exact tails
//   softsign  <= 1.5 ulp     x / (1 + |x|); +-1 at +-inf
//   pow       <= 4 + 3|y ln|x|| ulp, as C's pow for the special values (negative x: integer y only)
//   fmod      exact for |x / y| < 2^24 (C's fmod; computed in double), else within 2^-51 |x| + 2|y|
//   floor_mod the divisor's sign (Python's %): fmod plus y when the signs differ, one rounding
#pragma once

#include "compiler/ir/ir.h"

namespace tf::ir {

Expr expm1(Expr x);
Expr log1p(Expr x);
Expr sinh(Expr x);
Expr cosh(Expr x);
Expr asinh(Expr x);
Expr acosh(Expr x);
Expr atanh(Expr x);
Expr softplus(Expr x);
Expr softsign(Expr x);
// -1, 0 or 1; NaN stays NaN, -0 stays -0.
Expr sign(Expr x);
// x^y for a computed y.
Expr pow(Expr x, Expr y);
Expr fmod(Expr x, Expr y);
Expr floor_mod(Expr x, Expr y);

}  // namespace tf::ir

// Math on IR expressions beyond the arithmetic operators: the transcendental intrinsics by name,
// and powers with a constant exponent expanded into what is cheapest to run.
#pragma once

#include "compiler/ir/ir.h"

namespace tf::ir {

Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr rsqrt(Expr x);  // 1 / sqrt(x): two roundings, within 1.5 ulp
Expr tanh(Expr x);
Expr erf(Expr x);
Expr sigmoid(Expr x);
Expr abs(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
Expr round(Expr x);  // to the nearest integer, halves to even (ONNX Round, numpy.round)
// The trigonometric functions: within 1 ulp. sin, cos and tan are NaN for |x| > 2^28, where the
// kernel's reduction by pi/2 would no longer be exact (codegen/fast_math.h).
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr asin(Expr x);
Expr acos(Expr x);
Expr atan(Expr x);
// GELU's erf form, x * (1 + erf(x / sqrt 2)) / 2, within 1e-6 |x| of it: erf only to the absolute
// error an activation needs (one polynomial, under half of erf's instructions), not to erf's ulps.
Expr gelu(Expr x);
Expr fence(Expr x);  // x itself, rounded as stored: no multiply-add contracted across it

// x^p for a constant p, as numpy's float32 power computes it (NaN for a negative x and a
// non-integer p): integer p with |p| <= 64 by repeated squaring (a reciprocal for p < 0, one
// rounding per multiply), p = +-0.5 and integer-plus-half through sqrt, a larger integer as
// +-exp(p * log|x|), anything else as exp(p * log(x)), whose error grows with |p log x| (about
// 3 |p log x| + 4 ulp).
// Throws CompileError for a p that is not finite.
Expr pow_const(Expr x, double p);

}  // namespace tf::ir

// Float32 transcendentals emitted as straight-line LLVM IR: range reduction, a polynomial, and
// special cases by select. They work lane-wise on vectors (so a vectorized loop stays vectorized)
// and call nothing: a kernel shared library needs no libm when a board dlopens it.
//
// Accuracy against a correctly rounded result (measured in tests/fast_math_test.cc):
//   exp      <= 2 ulp; overflow to +inf above ~88.72, gradual underflow to 0 below ~-103.97
//   log      <= 2 ulp; log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, denormal inputs exact-scaled
//   tanh     <= 3 ulp; tanh(+-inf) = +-1
//   erf      <= 3 ulp (absolute 2^-24 near 0.875); erf(+-inf) = +-1
//   sigmoid  <= 3 ulp; 0 and 1 at the ends, denormal results for x < ~-87
//   gelu     x (1 + erf(x / sqrt 2)) / 2 within 1e-6 |x| (erf to an absolute 4e-7); gelu(+inf) = +inf
//   sin, cos, tan        <= 1 ulp for |x| <= 2^28; NaN beyond (and for +-inf)
//   asin, acos, atan     <= 1 ulp; NaN outside [-1, 1] for asin and acos, atan(+-inf) = +-pi/2
//   floor, ceil, round   exact (round: halves to even); -0 and the sign of a zero result kept
// NaN in gives NaN out for every function.
//
// The trigonometric functions reduce and evaluate in double precision (lane-wise, still vectors):
// the reduction by pi/2 in three parts is exact for |x| <= 2^28, and the double polynomials leave
// only the final rounding to float. floor/ceil/round here are for targets without a rounding
// instruction (x86 before SSE4.1), where LLVM would call libm's floorf.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace tf::codegen::fast_math {

// x: float or a vector of float. Each returns a value of x's type.
llvm::Value* exp(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* log(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* tanh(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* erf(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* sigmoid(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* gelu(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* sin(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* cos(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* tan(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* asin(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* acos(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* atan(llvm::IRBuilder<>& b, llvm::Value* x);

// x: float or double, scalar or vector.
llvm::Value* floor(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* ceil(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* round_even(llvm::IRBuilder<>& b, llvm::Value* x);

// Where sin/cos/tan stop: beyond it their result is NaN.
constexpr double kTrigLimit = 268435456.0;  // 2^28

}  // namespace tf::codegen::fast_math

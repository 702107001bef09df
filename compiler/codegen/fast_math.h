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
// NaN in gives NaN out for every function.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace tf::codegen::fast_math {

// x: float or a vector of float. Each returns a value of x's type.
llvm::Value* exp(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* log(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* tanh(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* erf(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* sigmoid(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace tf::codegen::fast_math

// The polynomials: exp and log use Cephes's expf/logf coefficients (Cody-Waite reduction by ln 2);
// tanh near 0 and erf are Chebyshev fits made for this file (double-precision interpolation at
// Chebyshev nodes, converted to monomials), each well below float32 rounding on its interval.
#include "compiler/codegen/fast_math.h"

#include <llvm/IR/Intrinsics.h>

#include <initializer_list>
#include <limits>

namespace tf::codegen::fast_math {
namespace {

llvm::Value* constant(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }

llvm::Value* int_constant(llvm::Type* int_type, int64_t v) { return llvm::ConstantInt::get(int_type, static_cast<uint64_t>(v), true); }

// The i32 type (or vector of i32) with x's lanes.
llvm::Type* int_type_of(llvm::IRBuilder<>& b, llvm::Value* x) { return x->getType()->getWithNewType(b.getInt32Ty()); }

// c[0] + c[1]*t + c[2]*t^2 + ... by Horner's rule.
llvm::Value* polynomial(llvm::IRBuilder<>& b, llvm::Value* t, std::initializer_list<double> c) {
  const double* first = c.begin();
  const double* p = c.end() - 1;
  llvm::Value* r = constant(t, *p);
  while (p != first) {
    --p;
    r = b.CreateFAdd(b.CreateFMul(r, t), constant(t, *p));
  }
  return r;
}

llvm::Value* unary(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, llvm::Value* x) {
  return b.CreateUnaryIntrinsic(id, x);
}

llvm::Value* is_nan(llvm::IRBuilder<>& b, llvm::Value* x) { return b.CreateFCmpUNO(x, x); }

// 2^k for integer k in [-126, 127], built from the exponent bits.
llvm::Value* pow2(llvm::IRBuilder<>& b, llvm::Value* k, llvm::Type* float_type) {
  llvm::Value* biased = b.CreateAdd(k, int_constant(k->getType(), 127));
  return b.CreateBitCast(b.CreateShl(biased, int_constant(k->getType(), 23)), float_type);
}

// Rounds to the nearest integer without SSE4.1's roundps or libm's rintf: adding and subtracting
// 1.5 * 2^23 leaves no fraction bits (valid for |v| < 2^22, round half to even).
llvm::Value* round_to_integer(llvm::IRBuilder<>& b, llvm::Value* v) {
  llvm::Value* magic = constant(v, 12582912.0);
  return b.CreateFSub(b.CreateFAdd(v, magic), magic);
}

}  // namespace

llvm::Value* exp(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* nan = is_nan(b, x);
  // Beyond these the result is +inf or 0 anyway; clamping keeps the exponent arithmetic in range.
  // Ordered comparisons leave NaN alone, and NaN is replaced by 0 until the end.
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOGT(x, constant(x, 89.0)), constant(x, 89.0), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, constant(x, -104.0)), constant(x, -104.0), xc);
  xc = b.CreateSelect(nan, constant(x, 0.0), xc);
  llvm::Value* n = round_to_integer(b, b.CreateFMul(xc, constant(x, 1.44269504088896341)));
  // r = x - n ln2 in two steps: n * 0.693359375 is exact for |n| < 2^15.
  llvm::Value* r = b.CreateFSub(xc, b.CreateFMul(n, constant(x, 0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(n, constant(x, -2.12194440e-4)));
  llvm::Value* p = polynomial(b, r, {5.0000001201E-1, 1.6666665459E-1, 4.1665795894E-2, 8.3334519073E-3,
                                     1.3981999507E-3, 1.9875691500E-4});
  p = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, r), r), r), constant(x, 1.0));
  // 2^n as two factors, each a normal number: their product overflows to inf or underflows
  // gradually (one rounding, in the last multiply) where a single 2^n would not exist.
  llvm::Type* it = int_type_of(b, x);
  llvm::Value* ni = b.CreateFPToSI(n, it);
  llvm::Value* n1 = b.CreateAShr(ni, int_constant(it, 1));
  llvm::Value* n2 = b.CreateSub(ni, n1);
  llvm::Value* result = b.CreateFMul(b.CreateFMul(p, pow2(b, n1, x->getType())), pow2(b, n2, x->getType()));
  return b.CreateSelect(nan, x, result);
}

llvm::Value* log(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* it = int_type_of(b, x);
  // Denormal inputs are scaled into the normal range first, and the exponent corrected.
  llvm::Value* denormal = b.CreateFCmpOLT(x, constant(x, std::numeric_limits<float>::min()));
  llvm::Value* xs = b.CreateSelect(denormal, b.CreateFMul(x, constant(x, 8388608.0)), x);
  llvm::Value* bits = b.CreateBitCast(xs, it);
  llvm::Value* e = b.CreateSub(b.CreateLShr(bits, int_constant(it, 23)), int_constant(it, 126));
  e = b.CreateSelect(denormal, b.CreateSub(e, int_constant(it, 23)), e);
  // The mantissa as m in [0.5, 1), then moved to [sqrt(0.5), sqrt(2)) so log(m) stays small.
  llvm::Value* m = b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, int_constant(it, 0x007fffff)), int_constant(it, 0x3f000000)),
                                   x->getType());
  llvm::Value* low = b.CreateFCmpOLT(m, constant(x, 0.707106781186547524));
  e = b.CreateSelect(low, b.CreateSub(e, int_constant(it, 1)), e);
  llvm::Value* f = b.CreateFSub(b.CreateSelect(low, b.CreateFAdd(m, m), m), constant(x, 1.0));
  llvm::Value* ef = b.CreateSIToFP(e, x->getType());
  llvm::Value* z = b.CreateFMul(f, f);
  llvm::Value* p = polynomial(b, f, {3.3333331174E-1, -2.4999993993E-1, 2.0000714765E-1, -1.6668057665E-1,
                                     1.4249322787E-1, -1.2420140846E-1, 1.1676998740E-1, -1.1514610310E-1,
                                     7.0376836292E-2});
  llvm::Value* y = b.CreateFMul(b.CreateFMul(p, f), z);
  y = b.CreateFAdd(y, b.CreateFMul(ef, constant(x, -2.12194440e-4)));
  y = b.CreateFSub(y, b.CreateFMul(z, constant(x, 0.5)));
  llvm::Value* result = b.CreateFAdd(b.CreateFAdd(f, y), b.CreateFMul(ef, constant(x, 0.693359375)));
  const double inf = std::numeric_limits<double>::infinity();
  result = b.CreateSelect(b.CreateFCmpOEQ(x, constant(x, inf)), constant(x, inf), result);
  result = b.CreateSelect(b.CreateFCmpOEQ(x, constant(x, 0.0)), constant(x, -inf), result);
  llvm::Value* invalid = b.CreateFCmpULT(x, constant(x, 0.0));  // negative or NaN
  return b.CreateSelect(invalid, constant(x, std::numeric_limits<double>::quiet_NaN()), result);
}

llvm::Value* tanh(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* ax = unary(b, llvm::Intrinsic::fabs, x);
  // |x| < 0.625: x * P(x^2), P fitted to tanh(x)/x.
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* near_zero = b.CreateFMul(x, polynomial(b, z, {0.999999996, -0.333332599, 0.133311141, -0.0537201077,
                                                              0.0205881915, -0.00565713521}));
  // Otherwise 1 - 2 / (e^{2|x|} + 1), which saturates to 1 (e^{2|x|} = inf included).
  llvm::Value* e = exp(b, b.CreateFAdd(ax, ax));
  llvm::Value* far = b.CreateFSub(constant(x, 1.0), b.CreateFDiv(constant(x, 2.0), b.CreateFAdd(e, constant(x, 1.0))));
  far = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, far, x);
  return b.CreateSelect(b.CreateFCmpOLT(ax, constant(x, 0.625)), near_zero, far);
}

llvm::Value* erf(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* ax = unary(b, llvm::Intrinsic::fabs, x);
  // |x| < 0.875: x * P(x^2), P fitted to erf(x)/x.
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* near_zero = b.CreateFMul(x, polynomial(b, z, {1.12837917, -0.376126352, 0.11283718, -0.0268606648,
                                                              0.00520422669, -0.000817963218, 8.52940134e-05}));
  // 0.875 <= |x| <= 4: 1 - exp(Q(|x| - 2.4375)), Q fitted to log(erfc) on [0.875, 4]; beyond 4,
  // erfc is below half an ulp of 1. The clamp keeps NaN (ordered comparison).
  llvm::Value* ac = b.CreateSelect(b.CreateFCmpOGT(ax, constant(x, 4.0)), constant(x, 4.0), ax);
  llvm::Value* s = b.CreateFSub(ac, constant(x, 2.4375));
  llvm::Value* log_erfc = polynomial(b, s, {-7.47595713, -5.2348234, -0.941806051, -0.0114164277, 0.00230168442,
                                            -0.000450529153, 8.27135481e-05, -1.39881025e-05, 1.940712e-06,
                                            -2.20300782e-08, -5.49260327e-08});
  llvm::Value* far = b.CreateFSub(constant(x, 1.0), exp(b, log_erfc));
  far = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, far, x);
  return b.CreateSelect(b.CreateFCmpOLT(ax, constant(x, 0.875)), near_zero, far);
}

llvm::Value* sigmoid(llvm::IRBuilder<>& b, llvm::Value* x) {
  // e = exp(-|x|) never overflows; for x < 0, e / (1 + e) keeps tiny results (denormals included)
  // that 1 / (1 + exp(-x)) would flush to 0.
  llvm::Value* e = exp(b, b.CreateFNeg(unary(b, llvm::Intrinsic::fabs, x)));
  llvm::Value* denominator = b.CreateFAdd(constant(x, 1.0), e);
  llvm::Value* positive = b.CreateFDiv(constant(x, 1.0), denominator);
  llvm::Value* negative = b.CreateFDiv(e, denominator);
  return b.CreateSelect(b.CreateFCmpOGE(x, constant(x, 0.0)), positive, negative);
}

}  // namespace tf::codegen::fast_math

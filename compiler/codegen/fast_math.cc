// The polynomials: exp and log use Cephes's expf/logf coefficients (Cody-Waite reduction by ln 2);
// tanh near 0 and erf are Chebyshev fits made for this file (double-precision interpolation at
// Chebyshev nodes, converted to monomials), each well below float32 rounding on its interval. The
// trigonometric ones and GELU's erf are Chebyshev fits too, made by scripts/fit-polynomials.py,
// which prints each one's error (relative below 3e-13; GELU's erf absolute 1.5e-7).
#include "compiler/codegen/fast_math.h"

#include <llvm/IR/Intrinsics.h>

#include <initializer_list>
#include <limits>

namespace tf::codegen::fast_math {
namespace {

llvm::Value* constant(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }

llvm::Value* int_constant(llvm::Type* int_type, int64_t v) {
  return llvm::ConstantInt::get(int_type, static_cast<uint64_t>(v), true);
}

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

llvm::Value* copysign(llvm::IRBuilder<>& b, llvm::Value* magnitude, llvm::Value* sign) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
}

// x's float lanes as double, and back.
llvm::Value* widen(llvm::IRBuilder<>& b, llvm::Value* x) {
  return b.CreateFPExt(x, x->getType()->getWithNewType(b.getDoubleTy()));
}
llvm::Value* narrow(llvm::IRBuilder<>& b, llvm::Value* d, llvm::Value* like) {
  return b.CreateFPTrunc(d, like->getType());
}

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
  llvm::Value* p = polynomial(
      b, r, {5.0000001201E-1, 1.6666665459E-1, 4.1665795894E-2, 8.3334519073E-3, 1.3981999507E-3, 1.9875691500E-4});
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
  llvm::Value* m = b.CreateBitCast(
      b.CreateOr(b.CreateAnd(bits, int_constant(it, 0x007fffff)), int_constant(it, 0x3f000000)), x->getType());
  llvm::Value* low = b.CreateFCmpOLT(m, constant(x, 0.707106781186547524));
  e = b.CreateSelect(low, b.CreateSub(e, int_constant(it, 1)), e);
  llvm::Value* f = b.CreateFSub(b.CreateSelect(low, b.CreateFAdd(m, m), m), constant(x, 1.0));
  llvm::Value* ef = b.CreateSIToFP(e, x->getType());
  llvm::Value* z = b.CreateFMul(f, f);
  llvm::Value* p = polynomial(b, f,
                              {3.3333331174E-1, -2.4999993993E-1, 2.0000714765E-1, -1.6668057665E-1, 1.4249322787E-1,
                               -1.2420140846E-1, 1.1676998740E-1, -1.1514610310E-1, 7.0376836292E-2});
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
  llvm::Value* near_zero = b.CreateFMul(
      x, polynomial(b, z, {0.999999996, -0.333332599, 0.133311141, -0.0537201077, 0.0205881915, -0.00565713521}));
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
  llvm::Value* near_zero = b.CreateFMul(x, polynomial(b, z,
                                                      {1.12837917, -0.376126352, 0.11283718, -0.0268606648,
                                                       0.00520422669, -0.000817963218, 8.52940134e-05}));
  // 0.875 <= |x| <= 4: 1 - exp(Q(|x| - 2.4375)), Q fitted to log(erfc) on [0.875, 4]; beyond 4,
  // erfc is below half an ulp of 1. The clamp keeps NaN (ordered comparison).
  llvm::Value* ac = b.CreateSelect(b.CreateFCmpOGT(ax, constant(x, 4.0)), constant(x, 4.0), ax);
  llvm::Value* s = b.CreateFSub(ac, constant(x, 2.4375));
  llvm::Value* log_erfc =
      polynomial(b, s,
                 {-7.47595713, -5.2348234, -0.941806051, -0.0114164277, 0.00230168442, -0.000450529153, 8.27135481e-05,
                  -1.39881025e-05, 1.940712e-06, -2.20300782e-08, -5.49260327e-08});
  llvm::Value* far = b.CreateFSub(constant(x, 1.0), exp(b, log_erfc));
  far = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, far, x);
  return b.CreateSelect(b.CreateFCmpOLT(ax, constant(x, 0.875)), near_zero, far);
}

llvm::Value* gelu(llvm::IRBuilder<>& b, llvm::Value* x) {
  // erf(t), t = |x| / sqrt 2, as one polynomial in t - 1.95 on [0, 3.9] (absolute error 1.5e-7,
  // 4e-7 in float; beyond 3.9 erf is within 4e-8 of 1): the error an activation's x (1 + erf) / 2 can carry,
  // where erf's own two polynomials and exp cost twice the instructions. The clamp keeps NaN.
  llvm::Value* t = b.CreateFMul(unary(b, llvm::Intrinsic::fabs, x), constant(x, 0.70710678118654752440));
  t = b.CreateSelect(b.CreateFCmpOGT(t, constant(x, 3.9)), constant(x, 3.9), t);
  llvm::Value* e =
      polynomial(b, b.CreateFSub(t, constant(x, 1.95)),
                 {0.994179423278992, 0.02517976933212056, -0.04910343712338082, 0.05543443156316236,
                  -0.03766677765393879, 0.012778483569826863, 0.001712190123670951, -0.004048820713417328,
                  0.0016314853887096513, 0.00012968741424215302, -0.00035325265392742477, 7.804182645865281e-05,
                  3.178853789430513e-05, -1.2848562405930318e-05, -1.1595888987478082e-06, 6.932718136918524e-07});
  llvm::Value* half = b.CreateFMul(x, constant(x, 0.5));
  return b.CreateFAdd(half, b.CreateFMul(half, copysign(b, e, x)));
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

llvm::Value* round_even(llvm::IRBuilder<>& b, llvm::Value* x) {
  // |x| + 2^p - 2^p leaves no fraction bits (the sum's ulp is 1) and rounds halves to even; from
  // 2^p on every value is already an integer (and NaN and inf fail the ordered comparison).
  const double big = x->getType()->getScalarType()->isDoubleTy() ? 4503599627370496.0 : 8388608.0;
  llvm::Value* ax = unary(b, llvm::Intrinsic::fabs, x);
  llvm::Value* r = b.CreateFSub(b.CreateFAdd(ax, constant(x, big)), constant(x, big));
  return b.CreateSelect(b.CreateFCmpOLT(ax, constant(x, big)), copysign(b, r, x), x);
}

// A zero result takes x's sign (floor(0.5) = +0, ceil(-0.5) = -0), as every non-zero one already has.
llvm::Value* floor(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* r = round_even(b, x);
  return copysign(b, b.CreateSelect(b.CreateFCmpOGT(r, x), b.CreateFSub(r, constant(x, 1.0)), r), x);
}

llvm::Value* ceil(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* r = round_even(b, x);
  return copysign(b, b.CreateSelect(b.CreateFCmpOLT(r, x), b.CreateFAdd(r, constant(x, 1.0)), r), x);
}

namespace {

// x (double) = j pi/2 + r, |r| <= pi/4, for |x| <= 2^28, and j mod 4 as i32 lanes.
struct Reduced {
  llvm::Value* r;
  llvm::Value* quadrant;
};

// pi/2 = P1 + P2 + P3: P1 and P2 have 25 significant bits, so for |j| < 2^28 the products j P1 and
// j P2 are exact doubles, x - j P1 is exact (Sterbenz), and r1 - j P2 is a multiple of 2^-50 below
// 1, exact too. Only j P3 (below 2^-22) rounds: r is within 2^-74 + 2^-53 |r| of x - j pi/2.
Reduced reduce_half_pi(llvm::IRBuilder<>& b, llvm::Value* xd) {
  constexpr double kP1 = 1.5707963109016418, kP2 = 1.5893254712295857e-08, kP3 = 6.123233995736766e-17;
  llvm::Value* magic = constant(xd, 6755399441055744.0);  // 1.5 * 2^52: rounds a double below 2^51
  llvm::Value* j = b.CreateFSub(b.CreateFAdd(b.CreateFMul(xd, constant(xd, 0.6366197723675814)), magic), magic);
  llvm::Value* r = b.CreateFSub(xd, b.CreateFMul(j, constant(xd, kP1)));
  r = b.CreateFSub(r, b.CreateFMul(j, constant(xd, kP2)));
  r = b.CreateFSub(r, b.CreateFMul(j, constant(xd, kP3)));
  llvm::Type* it = xd->getType()->getWithNewType(b.getInt32Ty());
  return {r, b.CreateAnd(b.CreateFPToSI(j, it), int_constant(it, 3))};
}

// sin(r) and cos(r) for |r| <= pi/4, in double.
llvm::Value* sin_kernel(llvm::IRBuilder<>& b, llvm::Value* r) {
  llvm::Value* u = b.CreateFMul(r, r);
  llvm::Value* p = polynomial(b, u,
                              {-0.16666666666663885, 0.008333333331079206, -0.0001984126691696846,
                               2.7555990924268847e-06, -2.4805635751240042e-08});
  return b.CreateFAdd(r, b.CreateFMul(b.CreateFMul(r, u), p));
}

llvm::Value* cos_kernel(llvm::IRBuilder<>& b, llvm::Value* r) {
  llvm::Value* u = b.CreateFMul(r, r);
  llvm::Value* p = polynomial(b, u,
                              {0.04166666666666468, -0.001388888888727733, 2.4801585210977996e-05,
                               -2.755636969178534e-07, 2.0700600132589564e-09});
  return b.CreateFAdd(b.CreateFSub(constant(r, 1.0), b.CreateFMul(u, constant(r, 0.5))),
                      b.CreateFMul(b.CreateFMul(u, u), p));
}

// asin(v) for |v| <= 0.5, in double.
llvm::Value* asin_kernel(llvm::IRBuilder<>& b, llvm::Value* v) {
  llvm::Value* u = b.CreateFMul(v, v);
  llvm::Value* p = polynomial(
      b, u,
      {0.16666666666738633, 0.07499999953429712, 0.044642906474584965, 0.030379945210024933, 0.022412417726695433,
       0.016902683886393575, 0.01686409027396012, 0.001067506315036312, 0.02834674523183333});
  return b.CreateFAdd(v, b.CreateFMul(b.CreateFMul(v, u), p));
}

llvm::Value* bit_set(llvm::IRBuilder<>& b, llvm::Value* q, int bit) {
  return b.CreateICmpNE(b.CreateAnd(q, int_constant(q->getType(), bit)), int_constant(q->getType(), 0));
}

// An odd function's value at +-0 is that zero (the polynomial's r + r u p would make -0 into +0).
llvm::Value* keep_zero(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* result) {
  return b.CreateSelect(b.CreateFCmpOEQ(x, constant(x, 0.0)), x, result);
}

// sin (phase 0) or cos (phase 1) of float x: the quadrant picks +-sin r or +-cos r.
llvm::Value* sin_cos(llvm::IRBuilder<>& b, llvm::Value* x, int phase) {
  llvm::Value* in_range = b.CreateFCmpOLE(unary(b, llvm::Intrinsic::fabs, x), constant(x, kTrigLimit));
  llvm::Value* xd = widen(b, b.CreateSelect(in_range, x, constant(x, 0.0)));
  Reduced red = reduce_half_pi(b, xd);
  llvm::Value* q = b.CreateAdd(red.quadrant, int_constant(red.quadrant->getType(), phase));
  llvm::Value* v = b.CreateSelect(bit_set(b, q, 1), cos_kernel(b, red.r), sin_kernel(b, red.r));
  v = b.CreateSelect(bit_set(b, q, 2), b.CreateFNeg(v), v);
  llvm::Value* result =
      b.CreateSelect(in_range, narrow(b, v, x), constant(x, std::numeric_limits<double>::quiet_NaN()));
  return phase == 0 ? keep_zero(b, x, result) : result;
}

}  // namespace

llvm::Value* sin(llvm::IRBuilder<>& b, llvm::Value* x) { return sin_cos(b, x, 0); }

llvm::Value* cos(llvm::IRBuilder<>& b, llvm::Value* x) { return sin_cos(b, x, 1); }

llvm::Value* tan(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* in_range = b.CreateFCmpOLE(unary(b, llvm::Intrinsic::fabs, x), constant(x, kTrigLimit));
  llvm::Value* xd = widen(b, b.CreateSelect(in_range, x, constant(x, 0.0)));
  Reduced red = reduce_half_pi(b, xd);
  llvm::Value* s = sin_kernel(b, red.r);
  llvm::Value* c = cos_kernel(b, red.r);
  // tan(r + pi/2) = -cos r / sin r; r is never 0 there (no float is a multiple of pi/2).
  llvm::Value* v = b.CreateSelect(bit_set(b, red.quadrant, 1), b.CreateFDiv(b.CreateFNeg(c), s), b.CreateFDiv(s, c));
  return keep_zero(b, x,
                   b.CreateSelect(in_range, narrow(b, v, x), constant(x, std::numeric_limits<double>::quiet_NaN())));
}

llvm::Value* atan(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* xd = widen(b, x);
  llvm::Value* a = unary(b, llvm::Intrinsic::fabs, xd);
  // atan a = pi/2 + atan(-1/a) above tan(3pi/8), pi/4 + atan((a-1)/(a+1)) above tan(pi/8): the
  // argument left is below tan(pi/8) in magnitude. NaN fails both comparisons and stays NaN.
  llvm::Value* far = b.CreateFCmpOGT(a, constant(a, 2.414213562373095));
  llvm::Value* mid = b.CreateFCmpOGT(a, constant(a, 0.41421356237309503));
  llvm::Value* t =
      b.CreateSelect(mid, b.CreateFDiv(b.CreateFSub(a, constant(a, 1.0)), b.CreateFAdd(a, constant(a, 1.0))), a);
  t = b.CreateSelect(far, b.CreateFDiv(constant(a, -1.0), a), t);
  llvm::Value* base = b.CreateSelect(far, constant(a, 1.5707963267948966),
                                     b.CreateSelect(mid, constant(a, 0.7853981633974483), constant(a, 0.0)));
  llvm::Value* u = b.CreateFMul(t, t);
  llvm::Value* p = polynomial(b, u,
                              {-0.33333333333266196, 0.19999999949854147, -0.14285708110293044, 0.11110819714143265,
                               -0.09084101847894814, 0.07604799605256801, -0.06027305443163367, 0.03295675933201312});
  llvm::Value* v = b.CreateFAdd(base, b.CreateFAdd(t, b.CreateFMul(b.CreateFMul(t, u), p)));
  return copysign(b, narrow(b, v, x), x);
}

namespace {

// asin of |x| <= 0.5 directly; above, asin a = pi/2 - 2 asin(sqrt((1 - a) / 2)). `v` is the
// argument asin_kernel gets, `small` whether it is x itself. |x| > 1 makes the sqrt NaN.
struct AsinArgument {
  llvm::Value* small;
  llvm::Value* v;
};

AsinArgument asin_argument(llvm::IRBuilder<>& b, llvm::Value* xd) {
  llvm::Value* a = unary(b, llvm::Intrinsic::fabs, xd);
  llvm::Value* small = b.CreateFCmpOLE(a, constant(a, 0.5));
  llvm::Value* s = unary(b, llvm::Intrinsic::sqrt, b.CreateFSub(constant(a, 0.5), b.CreateFMul(a, constant(a, 0.5))));
  return {small, b.CreateSelect(small, xd, s)};
}

}  // namespace

llvm::Value* asin(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* xd = widen(b, x);
  AsinArgument arg = asin_argument(b, xd);
  llvm::Value* p = asin_kernel(b, arg.v);
  llvm::Value* far = copysign(b, b.CreateFSub(constant(p, 1.5707963267948966), b.CreateFAdd(p, p)), xd);
  return narrow(b, b.CreateSelect(arg.small, p, far), x);
}

llvm::Value* acos(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* xd = widen(b, x);
  AsinArgument arg = asin_argument(b, xd);
  llvm::Value* p = asin_kernel(b, arg.v);
  // acos x = pi/2 - asin x; above 0.5, 2 asin(sqrt((1 - x) / 2)); below -0.5, pi minus that.
  llvm::Value* twice = b.CreateFAdd(p, p);
  llvm::Value* far = b.CreateSelect(b.CreateFCmpOLT(xd, constant(xd, 0.0)),
                                    b.CreateFSub(constant(p, 3.141592653589793), twice), twice);
  return narrow(b, b.CreateSelect(arg.small, b.CreateFSub(constant(p, 1.5707963267948966), p), far), x);
}

}  // namespace tf::codegen::fast_math

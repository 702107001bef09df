// The elementwise kinds ONNX's activation and math ops need, as generated kernels, against <cmath>
// in double: ulp error over wide ranges within what each documents, the special values ONNX and
// numpy define (NaN, infinities, zeros, halves), and every output within the bound evaluate()
// gives, which is what tuning checks each config against. Also the recommended compositions
// (elementwise_expr.h) against double implementations of the ONNX formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>

#include "compiler/compiler.h"
#include "compiler/ir/printer.h"
#include "compiler/kernel_runner.h"
#include "compiler/ops/elementwise.h"
#include "runtime/measure.h"
#include "tests/elementwise_exprs.h"
#include "tests/float_accuracy.h"

namespace tf {
namespace {

using K = ops::ElementwiseKind;
using E = ops::ElementwiseExprPtr;
using accuracy::ulp_error;
using accuracy::wide_inputs;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using testing_support::bin;
using testing_support::c;
using testing_support::un;
using testing_support::x;

// The kernel of `e` over rank-1 inputs of one length, and whether each output is within the
// reference's tolerance (ElementwiseOperator::reference, from evaluate()).
struct KernelRun {
  std::vector<float> out;
  int64_t outside_bound = 0;
  int64_t first_outside = -1;
};

KernelRun run(const E& e, const std::vector<std::vector<float>>& in) {
  const int64_t n = static_cast<int64_t>(in.at(0).size());
  auto op = std::make_shared<ops::ElementwiseOperator>(e, 1);
  const std::vector<int64_t> shape(in.size(), n);
  compiler::Task task(op, shape, codegen::host_target());
  auto kernel = task.build_jit(task.space().default_config());
  std::vector<compiler::HostTensor> tensors;
  std::vector<TFBuffer> args;
  std::vector<const float*> ptrs;
  for (const auto& v : in) {
    tensors.emplace_back(std::vector<int64_t>{n});
    std::copy(v.begin(), v.end(), tensors.back().data());
  }
  tensors.emplace_back(std::vector<int64_t>{n});
  for (const auto& t : tensors) args.push_back(t.buffer());
  for (size_t i = 0; i < in.size(); ++i) ptrs.push_back(tensors[i].data());
  EXPECT_EQ(kernel->entry()(args.data(), static_cast<int32_t>(args.size())), TF_OK);
  KernelRun r;
  r.out.assign(tensors.back().data(), tensors.back().data() + n);
  std::vector<float> expected, tolerance;
  op->reference(shape, ptrs, &expected, &tolerance);
  for (int64_t i = 0; i < n; ++i) {
    if (!runtime::matches_reference(r.out[i], expected[i], tolerance[i]) && r.outside_bound++ == 0) r.first_outside = i;
  }
  return r;
}

struct Worst {
  double ulp = 0;
  float at = 0;
};

Worst worst_ulp(const std::vector<float>& got, const std::vector<float>& in,
                const std::function<double(double)>& exact) {
  Worst w;
  for (size_t i = 0; i < in.size(); ++i) {
    const double e = ulp_error(got[i], exact(in[i]));
    if (e > w.ulp) w = {e, in[i]};
  }
  return w;
}

std::vector<float> concat(std::vector<float> a, const std::vector<float>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Floats just inside an edge of a domain: edge * (1 -+ k 2^-24).
std::vector<float> next_to(float edge, int count) {
  std::vector<float> v;
  float up = edge, down = edge;
  for (int i = 0; i < count; ++i) {
    v.push_back(up = std::nextafter(up, kInf));
    v.push_back(down = std::nextafter(down, -kInf));
  }
  return v;
}

double softplus(double v) { return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); }
double softsign(double v) { return std::isinf(v) ? std::copysign(1.0, v) : v / (1 + std::fabs(v)); }
double sign(double v) { return v > 0 ? 1 : v < 0 ? -1 : v; }

struct UnaryCase {
  K kind;
  double (*exact)(double);
  std::vector<float> in;
  double max_ulp;  // what the kind's documentation promises
};

TEST(ElementwiseMath, UnaryKindsWithinTheirDocumentedUlpAndTheirBound) {
  const std::vector<float> wide = wide_inputs(-10, 10, 3e38, 1);
  const std::vector<float> unit = wide_inputs(-1, 1, 1, 2);
  const std::vector<UnaryCase> cases = {
      {K::Abs, [](double v) { return std::fabs(v); }, wide, 0},
      {K::Log, [](double v) { return std::log(v); }, wide_inputs(1e-30, 1e6, 3e38, 3, false), 2},
      {K::Floor, [](double v) { return std::floor(v); }, wide, 0},
      {K::Ceil, [](double v) { return std::ceil(v); }, wide, 0},
      {K::Round, [](double v) { return std::nearbyint(v); }, wide, 0},
      {K::Sign, sign, wide, 0},
      {K::Reciprocal, [](double v) { return 1 / v; }, wide, 0.5},
      {K::Sin, [](double v) { return std::sin(v); }, wide_inputs(-10, 10, 2.6e8, 4), 1},
      {K::Cos, [](double v) { return std::cos(v); }, wide_inputs(-10, 10, 2.6e8, 5), 1},
      {K::Tan, [](double v) { return std::tan(v); }, wide_inputs(-10, 10, 2.6e8, 6), 1},
      {K::Asin, [](double v) { return std::asin(v); }, unit, 1},
      {K::Acos, [](double v) { return std::acos(v); }, unit, 1},
      {K::Atan, [](double v) { return std::atan(v); }, wide, 1},
      {K::Sinh, [](double v) { return std::sinh(v); }, wide_inputs(-90, 90, 3e38, 7), 2},
      {K::Cosh, [](double v) { return std::cosh(v); }, wide_inputs(-90, 90, 3e38, 8), 2},
      {K::Asinh, [](double v) { return std::asinh(v); }, wide, 3},
      {K::Acosh, [](double v) { return std::acosh(v); }, concat(wide_inputs(1, 20, 3e38, 9, false), next_to(1, 3000)),
       3},
      {K::Atanh, [](double v) { return std::atanh(v); }, concat(concat(unit, next_to(1, 3000)), next_to(-1, 3000)), 3},
      {K::Softplus, softplus, wide_inputs(-100, 100, 3e38, 10), 3},
      {K::Softsign, softsign, wide, 1.5},
      {K::Expm1, [](double v) { return std::expm1(v); }, wide_inputs(-20, 89, 3e38, 11), 2},
  };
  for (const auto& tc : cases) {
    const E e = un(tc.kind, x(0));
    SCOPED_TRACE(e->text());
    const KernelRun r = run(e, {tc.in});
    const Worst w = worst_ulp(r.out, tc.in, tc.exact);
    std::printf("  %-12s max %.3g ulp (at x = %.9g) over %zu inputs\n", e->text().c_str(), w.ulp, w.at, tc.in.size());
    EXPECT_LE(w.ulp, tc.max_ulp) << "at x = " << w.at;
    EXPECT_EQ(r.outside_bound, 0) << "x = " << (r.first_outside >= 0 ? tc.in[r.first_outside] : 0.0f) << " gives "
                                  << (r.first_outside >= 0 ? r.out[r.first_outside] : 0.0f)
                                  << ", outside evaluate()'s bound";
  }
}

// One input, one expected output each (NaN expects NaN; the sign of a zero is checked).
void expect_values(const E& e, const std::vector<std::pair<float, float>>& cases) {
  std::vector<float> in;
  for (const auto& [v, want] : cases) in.push_back(v);
  const KernelRun r = run(e, {in});
  for (size_t i = 0; i < cases.size(); ++i) {
    const float want = cases[i].second, got = r.out[i];
    const bool same = std::isnan(want) ? std::isnan(got) : got == want && std::signbit(got) == std::signbit(want);
    EXPECT_TRUE(same) << e->text() << " at x0 = " << in[i] << ": got " << got << ", want " << want;
  }
  EXPECT_EQ(r.outside_bound, 0) << e->text() << " at x0 = " << in[r.first_outside];
}

TEST(ElementwiseMath, SpecialValuesAsOnnxAndNumpyDefineThem) {
  expect_values(un(K::Log, x(0)),
                {{0.0f, -kInf}, {-0.0f, -kInf}, {-1.0f, kNaN}, {kInf, kInf}, {1.0f, 0.0f}, {kNaN, kNaN}});
  expect_values(un(K::Round, x(0)), {{2.5f, 2.0f},
                                     {-2.5f, -2.0f},
                                     {0.5f, 0.0f},
                                     {1.5f, 2.0f},
                                     {-0.5f, -0.0f},
                                     {3.5f, 4.0f},
                                     {-1.5f, -2.0f},
                                     {2.4999998f, 2.0f},
                                     {kInf, kInf},
                                     {kNaN, kNaN}});
  expect_values(un(K::Floor, x(0)), {{-0.5f, -1.0f}, {0.5f, 0.0f}, {-0.0f, -0.0f}, {-kInf, -kInf}});
  expect_values(un(K::Ceil, x(0)), {{-0.5f, -0.0f}, {0.5f, 1.0f}, {1e30f, 1e30f}});
  expect_values(un(K::Sign, x(0)),
                {{-3.0f, -1.0f}, {2e-45f, 1.0f}, {0.0f, 0.0f}, {-0.0f, -0.0f}, {kNaN, kNaN}, {-kInf, -1.0f}});
  expect_values(un(K::Reciprocal, x(0)), {{0.0f, kInf}, {-0.0f, -kInf}, {kInf, 0.0f}, {4.0f, 0.25f}});
  expect_values(un(K::Abs, x(0)), {{-0.0f, 0.0f}, {-kInf, kInf}, {-2.5f, 2.5f}});
  expect_values(
      un(K::Softplus, x(0)),
      {{100.0f, 100.0f}, {kInf, kInf}, {-kInf, 0.0f}, {0.0f, static_cast<float>(std::log(2.0))}, {kNaN, kNaN}});
  expect_values(un(K::Softsign, x(0)), {{kInf, 1.0f}, {-kInf, -1.0f}, {1.0f, 0.5f}, {kNaN, kNaN}});
  expect_values(un(K::Sinh, x(0)),
                {{90.0f, kInf}, {-90.0f, -kInf}, {kInf, kInf}, {0.0f, 0.0f}, {-0.0f, -0.0f}, {kNaN, kNaN}});
  expect_values(un(K::Cosh, x(0)), {{-90.0f, kInf}, {0.0f, 1.0f}, {-kInf, kInf}, {kNaN, kNaN}});
  expect_values(un(K::Acosh, x(0)), {{1.0f, 0.0f}, {0.5f, kNaN}, {-2.0f, kNaN}, {kInf, kInf}, {-kInf, kNaN}});
  expect_values(un(K::Atanh, x(0)), {{1.0f, kInf}, {-1.0f, -kInf}, {2.0f, kNaN}, {0.0f, 0.0f}});
  expect_values(un(K::Asinh, x(0)), {{kInf, kInf}, {-kInf, -kInf}, {0.0f, 0.0f}});
  expect_values(un(K::Expm1, x(0)), {{-kInf, -1.0f}, {kInf, kInf}, {0.0f, 0.0f}, {-200.0f, -1.0f}});
  expect_values(un(K::Not, x(0)), {{0.0f, 1.0f}, {-0.0f, 1.0f}, {1.0f, 0.0f}, {2.0f, 0.0f}, {kNaN, 0.0f}});
  // IsNaN and IsInf as the header's table composes them.
  expect_values(ops::parse_elementwise("not(eq(x0,x0))"), {{kNaN, 1.0f}, {kInf, 0.0f}, {0.0f, 0.0f}, {-3e38f, 0.0f}});
  expect_values(ops::parse_elementwise("gt(abs(x0),3.40282347e+38)"),
                {{kNaN, 0.0f}, {kInf, 1.0f}, {-kInf, 1.0f}, {3.4e38f, 0.0f}});
  // sinh and cosh stay finite up to ln(2 FLT_MAX) = 89.4, where exp itself overflows at 88.7.
  const KernelRun big = run(un(K::Sinh, x(0)), {{89.0f, 89.4f}});
  EXPECT_LE(ulp_error(big.out[0], std::sinh(89.0)), 4.0);
  EXPECT_LE(ulp_error(big.out[1], std::sinh(static_cast<double>(89.4f))), 4.0);
}

// Two inputs, their expected output each.
void expect_pairs(const E& e, const std::vector<std::array<float, 3>>& cases) {
  std::vector<float> a, b;
  for (const auto& t : cases) a.push_back(t[0]), b.push_back(t[1]);
  const KernelRun r = run(e, {a, b});
  for (size_t i = 0; i < cases.size(); ++i) {
    const float want = cases[i][2], got = r.out[i];
    const bool same = std::isnan(want) ? std::isnan(got) : got == want;
    EXPECT_TRUE(same) << e->text() << " at (" << a[i] << ", " << b[i] << "): got " << got << ", want " << want;
  }
  EXPECT_EQ(r.outside_bound, 0) << e->text() << " at (" << a[r.first_outside] << ", " << b[r.first_outside] << ")";
}

TEST(ElementwiseMath, PowWithAComputedExponentFollowsC) {
  expect_pairs(bin(K::Pow, x(0), x(1)), {{{0.0f, -1.0f, kInf}},
                                         {{0.0f, 2.0f, 0.0f}},
                                         {{-2.0f, 3.0f, -8.0f}},
                                         {{-2.0f, 2.0f, 4.0f}},
                                         {{-2.0f, 0.5f, kNaN}},
                                         {{kNaN, 0.0f, 1.0f}},
                                         {{1.0f, kNaN, 1.0f}},
                                         {{-1.0f, kInf, 1.0f}},
                                         {{2.0f, kInf, kInf}},
                                         {{0.5f, kInf, 0.0f}},
                                         {{kInf, -1.0f, 0.0f}},
                                         {{-kInf, 3.0f, -kInf}},
                                         {{-kInf, 2.0f, kInf}},
                                         {{3.0f, 2.0f, 9.0f}},
                                         {{4.0f, 0.5f, 2.0f}},
                                         {{-8.0f, -1.0f, -0.125f}}});
  // Accuracy: positive bases with any exponent, negative ones with integers.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> base(0.01f, 10.0f), exponent(-10.0f, 10.0f);
  std::vector<float> a, b;
  for (int i = 0; i < 20001; ++i) {
    a.push_back(base(rng));
    b.push_back(exponent(rng));
    if (i % 2) a.back() = -a.back(), b.back() = std::round(b.back());
  }
  const KernelRun r = run(bin(K::Pow, x(0), x(1)), {a, b});
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double exact = std::pow(static_cast<double>(a[i]), static_cast<double>(b[i]));
    const double allowed = 4 + 3 * std::fabs(b[i] * std::log(std::fabs(a[i])));
    const double e = ulp_error(r.out[i], exact);
    if (!(e <= allowed)) ADD_FAILURE() << "pow(" << a[i] << ", " << b[i] << ") = " << r.out[i] << ", exact " << exact;
    worst = std::max(worst, e / allowed);
  }
  std::printf("  pow(x0,x1): worst error %.2f of the allowed 4 + 3|y ln|x|| ulp\n", worst);
  EXPECT_EQ(r.outside_bound, 0);
  // A constant exponent is the constant kind: one expression, one text, one kernel.
  EXPECT_EQ(bin(K::Pow, x(0), c(2))->text(), ops::ew_pow(x(0), 2)->text());
  EXPECT_EQ(bin(K::Pow, x(0), c(2))->args.size(), 1u);
}

TEST(ElementwiseMath, ComparisonsAndLogicGiveOneOrZero) {
  std::vector<std::array<float, 3>> gt, eq, le, both, either, differ;
  for (float a : {-1.0f, 0.0f, -0.0f, 1.0f, 2.0f, kNaN, kInf}) {
    for (float b : {-1.0f, 0.0f, 1.0f, 2.0f, kNaN, -kInf}) {
      gt.push_back({a, b, a > b ? 1.0f : 0.0f});
      eq.push_back({a, b, a == b ? 1.0f : 0.0f});
      le.push_back({a, b, a <= b ? 1.0f : 0.0f});
      both.push_back({a, b, a != 0 && b != 0 ? 1.0f : 0.0f});
      either.push_back({a, b, a != 0 || b != 0 ? 1.0f : 0.0f});
      differ.push_back({a, b, (a != 0) != (b != 0) ? 1.0f : 0.0f});
    }
  }
  expect_pairs(bin(K::Greater, x(0), x(1)), gt);
  expect_pairs(bin(K::Less, x(1), x(0)), gt);
  expect_pairs(bin(K::Equal, x(0), x(1)), eq);
  expect_pairs(bin(K::LessOrEqual, x(0), x(1)), le);
  expect_pairs(bin(K::GreaterOrEqual, x(1), x(0)), le);
  expect_pairs(bin(K::And, x(0), x(1)), both);
  expect_pairs(bin(K::Or, x(0), x(1)), either);
  expect_pairs(bin(K::Xor, x(0), x(1)), differ);
  // Logic over comparisons stays in bools: no float compare of a 1.0/0.0 select.
  auto e = bin(K::And, bin(K::Greater, x(0), c(0)), un(K::Not, bin(K::Equal, x(0), x(1))));
  const std::string ir_text = ir::to_string(e->to_ir([](int) { return ir::make_float(0.5); }));
  EXPECT_EQ(ir_text.find("!="), std::string::npos) << ir_text;
}

double python_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && (r < 0) != (b < 0)) r += b;
  return r;
}

TEST(ElementwiseMath, ModFollowsTheDivisorFmodTheDividend) {
  // ONNX's test_mod_mixed_sign_float32 (fmod = 1) and its sign table.
  expect_pairs(bin(K::Fmod, x(0), x(1)), {{{-4.3f, 2.1f, std::fmod(-4.3f, 2.1f)}},
                                          {{7.2f, -3.4f, std::fmod(7.2f, -3.4f)}},
                                          {{5.0f, 8.0f, 5.0f}},
                                          {{-7.0f, 3.0f, -1.0f}},
                                          {{7.0f, -3.0f, 1.0f}},
                                          {{5.0f, 0.0f, kNaN}},
                                          {{kInf, 2.0f, kNaN}},
                                          {{5.0f, kInf, 5.0f}},
                                          {{-5.0f, -kInf, -5.0f}},
                                          {{kNaN, 1.0f, kNaN}},
                                          {{1e30f, 3.0f, std::fmod(1e30f, 3.0f)}}});
  expect_pairs(bin(K::Mod, x(0), x(1)), {{{-7.0f, 3.0f, 2.0f}},
                                         {{7.0f, -3.0f, -2.0f}},
                                         {{-7.5f, 2.0f, 0.5f}},
                                         {{6.0f, 3.0f, 0.0f}},
                                         {{-5.0f, kInf, kInf}},
                                         {{5.0f, kInf, 5.0f}},
                                         {{5.0f, 0.0f, kNaN}}});
  // Wide operands: fmod exact while |x / y| < 2^24 (and mostly beyond), mod one rounding.
  std::vector<float> a = wide_inputs(-100, 100, 1e6, 12), b = wide_inputs(-10, 10, 1e4, 13);
  const KernelRun f = run(bin(K::Fmod, x(0), x(1)), {a, b});
  const KernelRun m = run(bin(K::Mod, x(0), x(1)), {a, b});
  int64_t inexact = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::fabs(a[i] / b[i]) < 16777216.0)) continue;
    const float want = std::fmod(a[i], b[i]);
    if (!(f.out[i] == want || (std::isnan(want) && std::isnan(f.out[i])))) {
      if (inexact++ < 3) ADD_FAILURE() << "fmod(" << a[i] << ", " << b[i] << ") = " << f.out[i] << ", want " << want;
    }
    EXPECT_LE(ulp_error(m.out[i], python_mod(a[i], b[i])), 0.5) << "mod(" << a[i] << ", " << b[i] << ")";
  }
  EXPECT_EQ(f.outside_bound, 0);
  EXPECT_EQ(m.outside_bound, 0);
}

TEST(ElementwiseMath, WhereSelectsOnAnyNonZeroCondition) {
  const std::vector<float> cond = {1.0f, 0.0f, 2.0f, kNaN, -0.0f, -1.0f}, a(6, 10.0f), b(6, 20.0f);
  const KernelRun r = run(ops::ew_where(x(0), x(1), x(2)), {cond, a, b});
  EXPECT_EQ(r.out, (std::vector<float>{10, 20, 10, 10, 20, 10}));
  EXPECT_THROW(ops::ew_where(x(0), nullptr, x(1)), CompileError);
  EXPECT_THROW(ops::parse_elementwise("where(x0,x1)"), CompileError);
}

TEST(ElementwiseMath, TextOfEveryNewKindReadsBack) {
  for (const char* t :
       {"abs(x0)",   "log(x0)",        "floor(x0)",  "ceil(x0)",          "round(x0)",
        "sign(x0)",  "reciprocal(x0)", "sin(x0)",    "cos(x0)",           "tan(x0)",
        "asin(x0)",  "acos(x0)",       "atan(x0)",   "sinh(x0)",          "cosh(x0)",
        "asinh(x0)", "acosh(x0)",      "atanh(x0)",  "softplus(x0)",      "softsign(x0)",
        "expm1(x0)", "not(x0)",        "pow(x0,x1)", "pow(x0,add(x1,1))", "gt(x0,x1)",
        "lt(x0,0)",  "eq(x0,x1)",      "ge(x0,x1)",  "le(x0,x1)",         "and(x0,x1)",
        "or(x0,x1)", "xor(x0,x1)",     "mod(x0,3)",  "fmod(x0,x1)",       "where(gt(x0,0),x0,mul(x0,0.01))",
        "pow(x0,2)", "clip(x0,0,6)"}) {
    EXPECT_EQ(ops::parse_elementwise(t)->text(), t);
  }
  EXPECT_EQ(ops::parse_elementwise("pow(x0,x1)")->args.size(), 2u);
  EXPECT_EQ(ops::parse_elementwise("pow(x0,2)")->args.size(), 1u);
  for (const char* t : {"gt(x0)", "where(x0,x1,x2,x3)", "not(x0,x1)", "pow(x0,)", "mod(x0)", "fmod(,x1)"}) {
    EXPECT_THROW(ops::parse_elementwise(t), CompileError) << t;
  }
  EXPECT_THROW(ops::ew_unary(K::Greater, x(0)), CompileError);
  EXPECT_THROW(ops::ew_binary(K::Sin, x(0), x(1)), CompileError);
  EXPECT_THROW(ops::ew_binary(K::Where, x(0), x(1)), CompileError);
  EXPECT_THROW(ops::ew_binary(K::Pow, x(0), nullptr), CompileError);
  EXPECT_THROW(ops::ElementwiseOperator(ops::parse_elementwise("add(x0,x2)"), 1), CompileError);  // x1 unread
}

// The kernel takes x0, x1, ... in that order whatever order the expression reads them in.
TEST(ElementwiseMath, ArgumentsInInputOrderWhateverTheReadOrder) {
  const KernelRun r = run(ops::parse_elementwise("sub(x1,mul(x0,x2))"), {{1, 2}, {10, 20}, {3, 4}});
  EXPECT_EQ(r.out, (std::vector<float>{7, 12}));
}

// The ONNX ops elementwise_expr.h recommends as compositions, against their formulas in double:
// the ulp error the table there gives (where it gives one; for results above 1e-30), and ONNX's
// node-test tolerance (|got - want| <= 1e-4 |want| + 1e-6) everywhere.
TEST(ElementwiseMath, RecommendedCompositionsMeetTheirTable) {
  const double a = 1.67326319217681884765625, g = 1.05070102214813232421875;  // Selu's defaults
  auto p = [](const char* t) { return ops::parse_elementwise(t); };
  const E selu =
      ops::ew_where(bin(K::Greater, x(0), c(0)), bin(K::Mul, x(0), c(g)), bin(K::Mul, un(K::Expm1, x(0)), c(a * g)));
  const struct {
    const char* onnx;
    E e;
    std::function<double(double)> exact;
    double max_ulp;  // < 0: no ulp bound claimed
  } cases[] = {
      {"LeakyRelu", p("where(lt(x0,0),mul(x0,0.01),x0)"),
       [](double v) { return v < 0 ? v * static_cast<double>(0.01f) : v; }, 0.5},
      {"ThresholdedRelu", p("where(gt(x0,1),x0,0)"), [](double v) { return v > 1 ? v : 0; }, 0},
      {"Elu", p("where(lt(x0,0),mul(expm1(x0),1),x0)"), [](double v) { return v < 0 ? std::expm1(v) : v; }, 1.5},
      {"Selu", selu,
       [&](double v) {
         return v > 0 ? static_cast<double>(static_cast<float>(g)) * v
                      : static_cast<double>(static_cast<float>(a * g)) * std::expm1(v);
       },
       2.5},
      {"Celu", p("where(gt(x0,0),x0,mul(expm1(div(x0,2)),2))"),
       [](double v) { return v > 0 ? v : 2 * std::expm1(v / 2); }, 1.5},
      {"HardSigmoid", p("clip(add(mul(x0,0.2),0.5),0,1)"),
       [](double v) { return std::clamp(v * static_cast<double>(0.2f) + 0.5, 0.0, 1.0); }, -1},
      {"HardSwish", p("mul(x0,clip(add(mul(x0,0.166666672),0.5),0,1))"),
       [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }, -1},
      {"Mish", p("mul(x0,tanh(softplus(x0)))"), [](double v) { return v * std::tanh(softplus(v)); }, 4.5},
      {"Gelu", p("mul(mul(x0,0.5),add(1,erf(mul(x0,0.707106769))))"),
       [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, -1},
      {"Gelu(tanh)", p("mul(mul(x0,0.5),add(1,tanh(mul(add(x0,mul(pow(x0,3),0.044715)),0.797884583))))"),
       [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); }, -1},
  };
  const std::vector<float> in = wide_inputs(-20, 20, 1e4, 14);
  for (const auto& tc : cases) {
    SCOPED_TRACE(std::string(tc.onnx) + " = " + tc.e->text());
    const KernelRun r = run(tc.e, {in});
    double worst_ulp = 0, worst_abs = 0, worst_onnx = 0;
    float worst_at = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const double want = tc.exact(in[i]);
      // Ulps where the result is not tiny: below, denormal intermediates (e^-98 in Mish) set the
      // precision, and the absolute error is below 1e-37.
      if (std::fabs(want) > 1e-30 && ulp_error(r.out[i], want) > worst_ulp)
        worst_ulp = ulp_error(r.out[i], want), worst_at = in[i];
      worst_abs = std::max(worst_abs, std::fabs(r.out[i] - want));
      worst_onnx = std::max(worst_onnx, std::fabs(r.out[i] - want) / (1e-4 * std::fabs(want) + 1e-6));
    }
    std::printf("  %-15s max %.3g ulp (x = %.7g), max abs %.3g, %.3g of ONNX's tolerance\n", tc.onnx, worst_ulp,
                worst_at, worst_abs, worst_onnx);
    if (tc.max_ulp >= 0) {
      EXPECT_LE(worst_ulp, tc.max_ulp);
    }
    EXPECT_LE(worst_onnx, 1.0);
    EXPECT_EQ(r.outside_bound, 0);
  }
}

// Through the path tuning takes (random inputs in [-1, 1), broadcasting, every config, the
// reference check): domains where the result is NaN (log, acosh, pow of a negative base) match.
TEST(ElementwiseMath, NewKindsPassTheTuningCheckOnRandomInputs) {
  for (const char* t : {"where(lt(x0,0),mul(x0,x1),x0)", "add(log(x0),acosh(x1))", "pow(x0,x1)", "mod(x0,x1)",
                        "softplus(mul(sin(x0),cos(x1)))", "xor(gt(x0,x1),le(x0,0))", "atan(div(x0,x1))"}) {
    auto op = std::make_shared<ops::ElementwiseOperator>(ops::parse_elementwise(t), 2);
    const std::vector<int64_t> shape = {7, 37, 1, 37};  // x1 broadcasts along rows (PRelu's slope)
    compiler::Task task(op, shape, codegen::host_target());
    compiler::KernelRunner runner(task.op(), shape, 5);
    for (int64_t idx = 0; idx < task.space().size(); ++idx) {
      SCOPED_TRACE(std::string(t) + " config " + task.space().at(idx).str());
      ASSERT_EQ(runner.run(task.build_jit(task.space().at(idx))->entry()), TF_OK);
      const auto check = runner.check();
      EXPECT_TRUE(check.pass) << check.mismatches << " mismatches, first at " << check.first_mismatch;
    }
  }
  // Flops count one per op node, whatever the kind.
  ops::ElementwiseOperator leaky(ops::parse_elementwise("where(lt(x0,0),mul(x0,0.01),x0)"), 1);
  EXPECT_EQ(leaky.flops({100}), 300);
}

}  // namespace
}  // namespace tf

// The float32 transcendentals of codegen/fast_math.h, compiled into vectorized kernels, against
// libm in double precision: ulp error over wide ranges (large, small, negative, denormal inputs and
// results), the special values (NaN, infinities, zero), and no libm symbol in a built library.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>

#include "cli/kernel_runner.h"
#include "compiler/codegen/codegen.h"
#include "compiler/ir/math.h"
#include "compiler/lower/lower.h"
#include "compiler/schedule/schedule.h"

namespace tf {
namespace {

using MathFn = std::function<ir::Expr(ir::Expr)>;

// y[i] = f(x[i]) over n elements, vectorized by the target's width (a scalar tail when n is not a
// multiple), so both vector and scalar code paths are checked.
ir::LoweredFunc elementwise_kernel(const MathFn& f, int64_t n) {
  te::Tensor x = te::placeholder({n}, ir::DataType::float32(), "x");
  te::Tensor y = te::compute({n}, [&](const te::Indices& i) { return f(x(i[0])); }, "y");
  schedule::Schedule s({y});
  auto [outer, inner] = s[y].split(s[y].axis(0), std::max(1, codegen::host_target().float32_lanes()));
  s[y].vectorize(inner);
  (void)outer;
  return lower::lower(s, "tf_math");
}

std::vector<float> run(const MathFn& f, const std::vector<float>& in, std::string* assembly = nullptr) {
  const int64_t n = static_cast<int64_t>(in.size());
  codegen::CodegenOptions opts;
  opts.keep_assembly = assembly != nullptr;
  auto kernel = codegen::compile_jit(elementwise_kernel(f, n), codegen::host_target(), opts);
  if (assembly) *assembly = kernel->assembly();
  cli::HostTensor x({n}), y({n});
  std::copy(in.begin(), in.end(), x.data());
  std::vector<TFBuffer> args = {x.buffer(), y.buffer()};
  EXPECT_EQ(kernel->entry()(args.data(), 2), TF_OK);
  return std::vector<float>(y.data(), y.data() + n);
}

// |got - exact| in units of the spacing of floats at the exact value (denormal spacing below).
double ulp_error(float got, double exact) {
  if (std::isnan(exact)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(exact) || std::fabs(exact) > std::numeric_limits<float>::max()) {
    return got == static_cast<float>(exact) ? 0 : INFINITY;
  }
  const float rounded = std::fabs(static_cast<float>(exact));
  const double spacing = std::max<double>(std::nextafter(rounded, INFINITY) - rounded, std::ldexp(1.0, -149));
  return std::fabs(static_cast<double>(got) - exact) / spacing;
}

struct Accuracy {
  double max_ulp = 0;
  float worst_input = 0;
};

Accuracy measure(const MathFn& f, const std::function<double(double)>& exact, const std::vector<float>& in) {
  const std::vector<float> got = run(f, in);
  Accuracy a;
  for (size_t i = 0; i < in.size(); ++i) {
    const double e = ulp_error(got[i], exact(in[i]));
    if (e > a.max_ulp || std::isnan(e)) a = {e, in[i]};
  }
  return a;
}

// Uniform in [lo, hi], log-uniform magnitudes from 1e-38 to `big` (negated too when `negative`),
// denormals and zeros; an odd count, so the scalar tail runs too.
std::vector<float> inputs(double lo, double hi, double big, uint64_t seed, bool negative = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(lo, hi), expo(std::log(1e-38), std::log(big));
  std::vector<float> v;
  for (int i = 0; i < 40001; ++i) v.push_back(static_cast<float>(uni(rng)));
  for (int i = 0; i < 20000; ++i) {
    const float m = static_cast<float>(std::exp(expo(rng)));
    v.push_back(m);
    if (negative) v.push_back(-m);
  }
  for (float d : {1e-45f, 3e-42f, 1e-40f, 1.1e-38f}) {
    v.push_back(d);
    if (negative) v.push_back(-d);
  }
  v.push_back(0.0f);
  if (negative) v.push_back(-0.0f);
  return v;
}

double sigmoid_exact(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

TEST(FastMath, ExpWithinTwoUlpFromUnderflowToOverflow) {
  const auto a = measure([](ir::Expr x) { return ir::exp(x); }, [](double x) { return std::exp(x); },
                         inputs(-110, 95, 95, 1));
  EXPECT_LE(a.max_ulp, 2.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, LogWithinTwoUlpIncludingDenormalInputs) {
  const auto a = measure([](ir::Expr x) { return ir::log(x); }, [](double x) { return std::log(x); },
                         inputs(1e-30, 1e6, 3e38, 2, false));
  EXPECT_LE(a.max_ulp, 2.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, TanhWithinThreeUlp) {
  const auto a = measure([](ir::Expr x) { return ir::tanh(x); }, [](double x) { return std::tanh(x); },
                         inputs(-12, 12, 1e30, 3));
  EXPECT_LE(a.max_ulp, 3.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, ErfWithinThreeUlp) {
  const auto a = measure([](ir::Expr x) { return ir::erf(x); }, [](double x) { return std::erf(x); },
                         inputs(-6, 6, 1e30, 4));
  EXPECT_LE(a.max_ulp, 3.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, SigmoidWithinThreeUlpDownToDenormalResults) {
  const auto a = measure([](ir::Expr x) { return ir::sigmoid(x); }, sigmoid_exact, inputs(-105, 40, 1e30, 5));
  EXPECT_LE(a.max_ulp, 3.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, SqrtCorrectlyRoundedRsqrtWithinOneAndAHalfUlp) {
  const auto s = measure([](ir::Expr x) { return ir::sqrt(x); }, [](double x) { return std::sqrt(x); },
                         inputs(0, 1e6, 3e38, 6, false));
  EXPECT_LE(s.max_ulp, 0.5) << "worst at x = " << s.worst_input;
  const auto r = measure([](ir::Expr x) { return ir::rsqrt(x); }, [](double x) { return 1 / std::sqrt(x); },
                         inputs(1e-30, 1e6, 1e30, 7, false));
  EXPECT_LE(r.max_ulp, 1.5) << "worst at x = " << r.worst_input;  // two roundings
}

TEST(FastMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {nan, inf, -inf, 0.0f, -0.0f, -1.0f, 89.0f, -104.0f, 1e-45f};
  auto at = [&](const MathFn& f) { return run(f, in); };
  const auto e = at([](ir::Expr x) { return ir::exp(x); });
  EXPECT_TRUE(std::isnan(e[0]));
  EXPECT_EQ(e[1], inf);
  EXPECT_EQ(e[2], 0.0f);
  EXPECT_EQ(e[3], 1.0f);
  EXPECT_EQ(e[6], inf);  // beyond ln(FLT_MAX)
  EXPECT_EQ(e[7], 0.0f);  // below the smallest denormal's log
  const auto l = at([](ir::Expr x) { return ir::log(x); });
  EXPECT_TRUE(std::isnan(l[0]));
  EXPECT_EQ(l[1], inf);
  EXPECT_TRUE(std::isnan(l[2]));
  EXPECT_EQ(l[3], -inf);
  EXPECT_EQ(l[4], -inf);
  EXPECT_TRUE(std::isnan(l[5]));
  EXPECT_NEAR(l[8], std::log(static_cast<double>(1e-45f)), 1e-5);  // the smallest denormal
  for (const MathFn& f : std::vector<MathFn>{[](ir::Expr x) { return ir::tanh(x); }, [](ir::Expr x) { return ir::erf(x); }}) {
    const auto t = at(f);
    EXPECT_TRUE(std::isnan(t[0]));
    EXPECT_EQ(t[1], 1.0f);
    EXPECT_EQ(t[2], -1.0f);
    EXPECT_EQ(t[3], 0.0f);
    EXPECT_TRUE(std::signbit(t[4]));
  }
  const auto s = at([](ir::Expr x) { return ir::sigmoid(x); });
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_EQ(s[1], 1.0f);
  EXPECT_EQ(s[2], 0.0f);
  EXPECT_EQ(s[3], 0.5f);
}

TEST(FastMath, PowWithConstantExponents) {
  std::vector<float> in = inputs(-30, 30, 1e4, 8);
  for (double p : {2.0, 3.0, -1.0, -2.0, 0.5, -0.5, 1.5, 7.0, 1.0 / 3, 2.7, -1.3, 101.0}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const auto got = run([&](ir::Expr x) { return ir::pow_const(x, p); }, in);
    double worst = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const double exact = std::pow(static_cast<double>(in[i]), p);
      // Repeated squaring rounds once per multiply; exp(p log x) loses |p log x| ulp in the product.
      const bool by_multiplies = std::fabs(p) <= 64 && 2 * p == std::floor(2 * p);
      const double allowed = by_multiplies ? 2 + std::ceil(std::log2(std::fabs(p) + 1)) * 2
                                           : 4 + 3 * std::fabs(p * std::log(std::fabs(in[i])));
      if (std::fabs(exact) < 1e-37 || std::fabs(exact) > 3e38) continue;  // denormal or overflowing: libm's business
      const double e = ulp_error(got[i], exact);
      if (!(e <= allowed)) ADD_FAILURE() << "pow(" << in[i] << ", " << p << ") = " << got[i] << ", exact " << exact;
      worst = std::max(worst, e);
      if (worst > allowed) break;
    }
  }
  EXPECT_TRUE(ir::is_one(ir::pow_const(ir::make_float(3.0), 0.0)));
  EXPECT_THROW(ir::pow_const(ir::make_float(1.0), INFINITY), CompileError);
}

TEST(FastMath, VectorizedWithoutCalls) {
  std::string assembly;
  run([](ir::Expr x) { return ir::erf(x) + ir::exp(x) + ir::tanh(x) + ir::log(ir::abs(x)) + ir::sigmoid(x); },
      std::vector<float>(64, 0.5f), &assembly);
  for (const char* f : {"expf", "erff", "tanhf", "logf"}) {
    EXPECT_EQ(assembly.find(f), std::string::npos) << f << " is called:\n" << assembly.substr(0, 4000);
  }
  if (codegen::host_target().float32_lanes() > 1) {
    EXPECT_NE(assembly.find("mulps"), std::string::npos) << "no packed float multiplies:\n" << assembly.substr(0, 4000);
  }
}

}  // namespace
}  // namespace tf

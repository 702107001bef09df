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

#include "compiler/codegen/codegen.h"
#include "compiler/ir/math.h"
#include "compiler/kernel_runner.h"
#include "compiler/lower/lower.h"
#include "compiler/schedule/schedule.h"
#include "tests/float_accuracy.h"

namespace tf {
namespace {

using MathFn = std::function<ir::Expr(ir::Expr)>;

// y[i] = f(x[i]) over n elements, vectorized by the target's width (a scalar tail when n is not a
// multiple), so both vector and scalar code paths are checked.
ir::LoweredFunc elementwise_kernel(const MathFn& f, int64_t n, const codegen::Target& target) {
  te::Tensor x = te::placeholder({n}, ir::DataType::float32(), "x");
  te::Tensor y = te::compute(
      {n}, [&](const te::Indices& i) { return f(x(i[0])); }, "y");
  schedule::Schedule s({y});
  auto [outer, inner] = s[y].split(s[y].axis(0), std::max(1, target.float32_lanes()));
  s[y].vectorize(inner);
  (void)outer;
  return lower::lower(s, "tf_math");
}

std::vector<float> run_on(const codegen::Target& target, const MathFn& f, const std::vector<float>& in,
                          std::string* assembly = nullptr) {
  const int64_t n = static_cast<int64_t>(in.size());
  codegen::CodegenOptions opts;
  opts.keep_assembly = assembly != nullptr;
  auto kernel = codegen::compile_jit(elementwise_kernel(f, n, target), target, opts);
  if (assembly) *assembly = kernel->assembly();
  compiler::HostTensor x({n}), y({n});
  std::copy(in.begin(), in.end(), x.data());
  std::vector<TFBuffer> args = {x.buffer(), y.buffer()};
  EXPECT_EQ(kernel->entry()(args.data(), 2), TF_OK);
  return std::vector<float>(y.data(), y.data() + n);
}

std::vector<float> run(const MathFn& f, const std::vector<float>& in, std::string* assembly = nullptr) {
  return run_on(codegen::host_target(), f, in, assembly);
}

using accuracy::ulp_error;

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

std::vector<float> inputs(double lo, double hi, double big, uint64_t seed, bool negative = true) {
  return accuracy::wide_inputs(lo, hi, big, seed, negative);
}

double sigmoid_exact(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

TEST(FastMath, ExpWithinTwoUlpFromUnderflowToOverflow) {
  const auto a =
      measure([](ir::Expr x) { return ir::exp(x); }, [](double x) { return std::exp(x); }, inputs(-110, 95, 95, 1));
  EXPECT_LE(a.max_ulp, 2.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, LogWithinTwoUlpIncludingDenormalInputs) {
  const auto a = measure([](ir::Expr x) { return ir::log(x); }, [](double x) { return std::log(x); },
                         inputs(1e-30, 1e6, 3e38, 2, false));
  EXPECT_LE(a.max_ulp, 2.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, TanhWithinThreeUlp) {
  const auto a =
      measure([](ir::Expr x) { return ir::tanh(x); }, [](double x) { return std::tanh(x); }, inputs(-12, 12, 1e30, 3));
  EXPECT_LE(a.max_ulp, 3.0) << "worst at x = " << a.worst_input;
}

TEST(FastMath, ErfWithinThreeUlp) {
  const auto a =
      measure([](ir::Expr x) { return ir::erf(x); }, [](double x) { return std::erf(x); }, inputs(-6, 6, 1e30, 4));
  EXPECT_LE(a.max_ulp, 3.0) << "worst at x = " << a.worst_input;
}

// GELU's erf is an absolute approximation: what counts is the activation's error against its input.
TEST(FastMath, GeluWithinAMillionthOfItsInput) {
  const std::vector<float> in = inputs(-12, 12, 1e30, 8);
  const std::vector<float> got = run([](ir::Expr x) { return ir::gelu(x); }, in);
  double worst = 0;
  float worst_input = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const double x = in[i], exact = 0.5 * x * (1 + std::erf(x * std::sqrt(0.5)));
    const double relative = std::fabs(got[i] - exact) / std::max(std::fabs(x), 1e-30);
    if (relative > worst || std::isnan(relative)) worst = relative, worst_input = in[i];
  }
  EXPECT_LE(worst, 1e-6) << "worst at x = " << worst_input;
  const float inf = std::numeric_limits<float>::infinity();
  const auto special =
      run([](ir::Expr x) { return ir::gelu(x); }, {std::numeric_limits<float>::quiet_NaN(), inf, 0.0f});
  EXPECT_TRUE(std::isnan(special[0]));
  EXPECT_EQ(special[1], inf);
  EXPECT_EQ(special[2], 0.0f);
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
  EXPECT_EQ(e[6], inf);   // beyond ln(FLT_MAX)
  EXPECT_EQ(e[7], 0.0f);  // below the smallest denormal's log
  const auto l = at([](ir::Expr x) { return ir::log(x); });
  EXPECT_TRUE(std::isnan(l[0]));
  EXPECT_EQ(l[1], inf);
  EXPECT_TRUE(std::isnan(l[2]));
  EXPECT_EQ(l[3], -inf);
  EXPECT_EQ(l[4], -inf);
  EXPECT_TRUE(std::isnan(l[5]));
  EXPECT_NEAR(l[8], std::log(static_cast<double>(1e-45f)), 1e-5);  // the smallest denormal
  for (const MathFn& f :
       std::vector<MathFn>{[](ir::Expr x) { return ir::tanh(x); }, [](ir::Expr x) { return ir::erf(x); }}) {
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

// Floats at and next to multiples of pi/2, where the reduction cancels most: r is tiny and its
// relative error is what the result's ulp error becomes.
std::vector<float> near_half_pi_multiples(double limit, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> k_dist(1, limit / M_PI_2);
  std::vector<float> v;
  for (int i = 0; i < 30000; ++i) {
    const double k = i < 2000 ? i + 1 : std::floor(k_dist(rng));
    const float x = static_cast<float>(k * M_PI_2);
    for (float y : {std::nextafter(x, -INFINITY), x, std::nextafter(x, INFINITY)}) {
      v.push_back(y);
      v.push_back(-y);
    }
  }
  return v;
}

TEST(FastMath, SinCosTanWithinOneUlpUpToTwoToThe28) {
  std::vector<float> in = inputs(-10, 10, 2.6e8, 9);
  const std::vector<float> hard = near_half_pi_multiples(2.6e8, 10);
  in.insert(in.end(), hard.begin(), hard.end());
  const struct {
    const char* name;
    MathFn f;
    double (*exact)(double);
  } fns[] = {{"sin", [](ir::Expr x) { return ir::sin(x); }, [](double x) { return std::sin(x); }},
             {"cos", [](ir::Expr x) { return ir::cos(x); }, [](double x) { return std::cos(x); }},
             {"tan", [](ir::Expr x) { return ir::tan(x); }, [](double x) { return std::tan(x); }}};
  for (const auto& fn : fns) {
    const auto a = measure(fn.f, fn.exact, in);
    EXPECT_LE(a.max_ulp, 1.0) << fn.name << " worst at x = " << a.worst_input;
  }
}

TEST(FastMath, InverseTrigWithinOneUlp) {
  const std::vector<float> unit = inputs(-1, 1, 1, 11);
  const auto s = measure([](ir::Expr x) { return ir::asin(x); }, [](double x) { return std::asin(x); }, unit);
  EXPECT_LE(s.max_ulp, 1.0) << "asin worst at x = " << s.worst_input;
  const auto c = measure([](ir::Expr x) { return ir::acos(x); }, [](double x) { return std::acos(x); }, unit);
  EXPECT_LE(c.max_ulp, 1.0) << "acos worst at x = " << c.worst_input;
  const auto t =
      measure([](ir::Expr x) { return ir::atan(x); }, [](double x) { return std::atan(x); }, inputs(-10, 10, 3e38, 12));
  EXPECT_LE(t.max_ulp, 1.0) << "atan worst at x = " << t.worst_input;
}

TEST(FastMath, TrigSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {nan, inf, -inf, 0.0f, -0.0f, 3e8f, -268435456.0f, 1.0f, -1.0f, 1.5f};
  for (const MathFn& f :
       std::vector<MathFn>{[](ir::Expr x) { return ir::sin(x); }, [](ir::Expr x) { return ir::cos(x); },
                           [](ir::Expr x) { return ir::tan(x); }}) {
    const auto r = run(f, in);
    EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[1]) && std::isnan(r[2]));
    EXPECT_TRUE(std::isnan(r[5])) << "beyond 2^28 the reduction is not exact: NaN, got " << r[5];
    EXPECT_FALSE(std::isnan(r[6])) << "2^28 itself is in range";
  }
  const auto s = run([](ir::Expr x) { return ir::sin(x); }, in);
  EXPECT_EQ(s[3], 0.0f);
  EXPECT_TRUE(std::signbit(s[4]));
  EXPECT_LE(ulp_error(s[6], std::sin(-268435456.0)), 1.0);
  EXPECT_EQ(run([](ir::Expr x) { return ir::cos(x); }, in)[3], 1.0f);
  EXPECT_TRUE(std::signbit(run([](ir::Expr x) { return ir::tan(x); }, in)[4]));
  const auto as = run([](ir::Expr x) { return ir::asin(x); }, in);
  EXPECT_TRUE(std::isnan(as[0]) && std::isnan(as[1]) && std::isnan(as[9]));
  EXPECT_EQ(as[7], static_cast<float>(M_PI_2));
  EXPECT_EQ(as[8], -static_cast<float>(M_PI_2));
  EXPECT_TRUE(std::signbit(as[4]));
  const auto ac = run([](ir::Expr x) { return ir::acos(x); }, in);
  EXPECT_TRUE(std::isnan(ac[0]) && std::isnan(ac[2]) && std::isnan(ac[9]));
  EXPECT_EQ(ac[7], 0.0f);
  EXPECT_EQ(ac[8], static_cast<float>(M_PI));
  EXPECT_EQ(ac[3], static_cast<float>(M_PI_2));
  const auto at = run([](ir::Expr x) { return ir::atan(x); }, in);
  EXPECT_TRUE(std::isnan(at[0]));
  EXPECT_EQ(at[1], static_cast<float>(M_PI_2));
  EXPECT_EQ(at[2], -static_cast<float>(M_PI_2));
  EXPECT_TRUE(std::signbit(at[4]));
  EXPECT_EQ(at[7], static_cast<float>(M_PI_4));
}

// Halves, both signs of zero, the edges of the integer range (2^23, 2^24), denormals, specials.
std::vector<float> rounding_inputs() {
  std::vector<float> v = inputs(-100, 100, 3e38, 13);
  for (int k = -100; k <= 100; ++k) {
    for (double f : {0.5, 0.25, 0.75, 0.49999997, 0.50000006}) v.push_back(static_cast<float>(k + f));
  }
  for (float x : {8388607.5f, 8388608.0f, 8388609.0f, 16777216.0f, 4194303.5f, 0.49999997f}) {
    v.push_back(x);
    v.push_back(-x);
  }
  for (float x : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN()}) {
    v.push_back(x);
  }
  return v;
}

void expect_same_floats(const std::vector<float>& got, const std::vector<float>& in, double (*exact)(double),
                        const std::string& what) {
  int wrong = 0;
  for (size_t i = 0; i < in.size() && wrong < 5; ++i) {
    const float want = static_cast<float>(exact(in[i]));
    const bool same =
        std::isnan(want) ? std::isnan(got[i]) : got[i] == want && std::signbit(got[i]) == std::signbit(want);
    if (!same) {
      ++wrong;
      ADD_FAILURE() << what << "(" << in[i] << ") = " << got[i] << ", want " << want;
    }
  }
}

TEST(FastMath, FloorCeilRoundExactWithAndWithoutARoundingInstruction) {
  const std::vector<float> in = rounding_inputs();
  std::vector<codegen::Target> targets = {codegen::host_target()};
  // x86-64 without SSE4.1 has no roundps: LLVM would call floorf there, so fast_math's own code runs.
  if (codegen::host_target().triple.rfind("x86_64", 0) == 0) {
    targets.push_back(codegen::parse_target("llvm -mtriple=" + codegen::host_target().triple + " -mcpu=x86-64"));
  }
  for (const auto& target : targets) {
    SCOPED_TRACE(target.str());
    std::string assembly;
    expect_same_floats(
        run_on(
            target, [](ir::Expr x) { return ir::floor(x); }, in, &assembly),
        in, [](double x) { return std::floor(x); }, "floor");
    EXPECT_EQ(assembly.find("floorf"), std::string::npos) << assembly.substr(0, 3000);
    expect_same_floats(
        run_on(
            target, [](ir::Expr x) { return ir::ceil(x); }, in, &assembly),
        in, [](double x) { return std::ceil(x); }, "ceil");
    EXPECT_EQ(assembly.find("ceilf"), std::string::npos) << assembly.substr(0, 3000);
    expect_same_floats(
        run_on(
            target, [](ir::Expr x) { return ir::round(x); }, in, &assembly),
        in, [](double x) { return std::nearbyint(x); }, "round");
    EXPECT_EQ(assembly.find("roundevenf"), std::string::npos) << assembly.substr(0, 3000);
  }
}

TEST(FastMath, TrigVectorizedWithoutCalls) {
  std::string assembly;
  run(
      [](ir::Expr x) {
        return ir::sin(x) + ir::cos(x) + ir::tan(x) + ir::asin(x) + ir::acos(x) + ir::atan(x) + ir::round(x) +
               ir::floor(x);
      },
      std::vector<float>(64, 0.5f), &assembly);
  size_t at = 0;
  while ((at = assembly.find("call", at)) != std::string::npos) {
    const std::string line = assembly.substr(at, assembly.find('\n', at) - at);
    for (const char* f : {"sin", "cos", "tan", "floor", "round", "rint"}) {
      EXPECT_EQ(line.find(f), std::string::npos) << line;
    }
    at += 4;
  }
  if (codegen::host_target().float32_lanes() > 1) {
    EXPECT_NE(assembly.find("mulpd"), std::string::npos) << "no packed double multiplies:\n"
                                                         << assembly.substr(0, 4000);
  }
}

}  // namespace
}  // namespace tf

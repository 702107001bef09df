// Measuring float32 kernels against libm in double: inputs over wide ranges and the ulp error of
// a result (tests/fast_math_test.cc, tests/elementwise_math_test.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace tf::accuracy {

// |got - exact| in units of the spacing of floats at the exact value (denormal spacing below). A
// NaN expects NaN, an infinity (or a value beyond float's range) that infinity.
inline double ulp_error(float got, double exact) {
  if (std::isnan(exact)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(exact) || std::fabs(exact) > std::numeric_limits<float>::max()) {
    return got == static_cast<float>(exact) ? 0 : INFINITY;
  }
  const float rounded = std::fabs(static_cast<float>(exact));
  const double spacing = std::max<double>(std::nextafter(rounded, INFINITY) - rounded, std::ldexp(1.0, -149));
  const double e = std::fabs(static_cast<double>(got) - exact) / spacing;
  return std::isnan(e) ? INFINITY : e;
}

// Uniform in [lo, hi], log-uniform magnitudes from 1e-38 to `big` (negated too when `negative`),
// denormals and zeros; an odd count, so a vectorized kernel's scalar tail runs too.
inline std::vector<float> wide_inputs(double lo, double hi, double big, uint64_t seed, bool negative = true) {
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

}  // namespace tf::accuracy

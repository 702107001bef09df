#include "runtime/random_fill.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "runtime/kernel_abi.h"

namespace tf::runtime {
namespace {

// splitmix64: fast, and the same on every platform (std::uniform_real_distribution is not).
// Calls f(i, v) with v uniform in [0, 1) on a 2^-24 grid, exact in float and double.
template <typename F>
void for_each_uniform(int64_t n, uint64_t seed, F&& f) {
  uint64_t state = seed;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    f(i, static_cast<double>(z >> 40) * (1.0 / 16777216.0));
  }
}

// The smallest and one past the largest value of an integer type, as doubles (exact: powers of 2).
void integer_bounds(int32_t code, int32_t bits, double* low, double* high) {
  const double span = std::ldexp(1.0, bits);
  *low = code == TF_DTYPE_INT ? -span / 2 : 0;
  *high = *low + span;
}

template <typename T>
void fill_integers(T* data, int64_t n, FillRange r, uint64_t seed) {
  const double top = std::max(r.low, r.high - 1);
  for_each_uniform(n, seed, [&](int64_t i, double v) {
    data[i] = static_cast<T>(std::min(top, std::floor(r.low + v * (r.high - r.low))));
  });
}

}  // namespace

void fill_uniform(float* data, int64_t n, uint64_t seed) {
  for_each_uniform(n, seed, [&](int64_t i, double v) { data[i] = static_cast<float>(v * 2.0 - 1.0); });
}

FillRange default_fill_range(int32_t dtype_code, int32_t dtype_bits) {
  if (dtype_code == TF_DTYPE_FLOAT) return {-1, 1};
  if (dtype_bits == 8) {
    FillRange r;
    integer_bounds(dtype_code, dtype_bits, &r.low, &r.high);
    return r;
  }
  return {0, 0};
}

void check_fill_range(FillRange r, int32_t dtype_code, int32_t dtype_bits) {
  const std::string range = "[" + std::to_string(r.low) + ", " + std::to_string(r.high) + ")";
  if (!std::isfinite(r.low) || !std::isfinite(r.high) || r.low > r.high)
    throw std::invalid_argument("fill range " + range + " is not an interval of finite numbers");
  if (dtype_code == TF_DTYPE_FLOAT) {
    if (dtype_bits != 32 && dtype_bits != 64)
      throw std::invalid_argument("fill: float" + std::to_string(dtype_bits) + " is not supported");
    if (std::max(std::fabs(r.low), std::fabs(r.high)) > 1e30)
      throw std::invalid_argument("fill range " + range + " is beyond float32");
    return;
  }
  if ((dtype_code != TF_DTYPE_INT && dtype_code != TF_DTYPE_UINT) ||
      (dtype_bits != 8 && dtype_bits != 32 && dtype_bits != 64))
    throw std::invalid_argument("fill: dtype code " + std::to_string(dtype_code) + " with " +
                                std::to_string(dtype_bits) + " bits is not supported");
  double low = 0, high = 0;
  integer_bounds(dtype_code, std::min(dtype_bits, 53), &low, &high);
  if (r.low < low || r.high > high)
    throw std::invalid_argument("fill range " + range + " leaves the " + std::to_string(dtype_bits) + "-bit " +
                                (dtype_code == TF_DTYPE_INT ? "signed" : "unsigned") + " integers");
}

void fill_tensor(void* data, int64_t n, int32_t code, int32_t bits, FillRange r, uint64_t seed) {
  if (code == TF_DTYPE_FLOAT && bits == 64) {
    auto* d = static_cast<double*>(data);
    for_each_uniform(n, seed, [&](int64_t i, double v) { d[i] = r.low + v * (r.high - r.low); });
    return;
  }
  if (code == TF_DTYPE_FLOAT) {
    auto* f = static_cast<float*>(data);
    for_each_uniform(n, seed, [&](int64_t i, double v) { f[i] = static_cast<float>(r.low + v * (r.high - r.low)); });
    return;
  }
  const bool is_signed = code == TF_DTYPE_INT;
  switch (bits) {
    case 8:
      return is_signed ? fill_integers(static_cast<int8_t*>(data), n, r, seed)
                       : fill_integers(static_cast<uint8_t*>(data), n, r, seed);
    case 32:
      return is_signed ? fill_integers(static_cast<int32_t*>(data), n, r, seed)
                       : fill_integers(static_cast<uint32_t*>(data), n, r, seed);
    default:
      return is_signed ? fill_integers(static_cast<int64_t*>(data), n, r, seed)
                       : fill_integers(static_cast<uint64_t*>(data), n, r, seed);
  }
}

double element_value(const void* p, int32_t code, int32_t bits, int64_t i) {
  // No conditional operator between the types: int32_t and uint32_t would meet as unsigned.
  if (code == TF_DTYPE_FLOAT) {
    if (bits == 64) return static_cast<const double*>(p)[i];
    return static_cast<const float*>(p)[i];
  }
  const bool is_signed = code == TF_DTYPE_INT;
  switch (bits) {
    case 8:
      if (is_signed) return static_cast<const int8_t*>(p)[i];
      return static_cast<const uint8_t*>(p)[i];
    case 32:
      if (is_signed) return static_cast<const int32_t*>(p)[i];
      return static_cast<const uint32_t*>(p)[i];
    default:
      if (is_signed) return static_cast<double>(static_cast<const int64_t*>(p)[i]);
      return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
  }
}

}  // namespace tf::runtime

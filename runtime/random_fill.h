// Deterministic random tensor contents, identical in every process that asks for the same seed: the
// compiler computes a workload's reference output from them once, and a measuring worker (on a
// board, without the compiler) regenerates the same inputs from the seed alone.
#pragma once

#include <cstdint>

namespace tf::runtime {

// Uniform in [-1, 1), float32.
void fill_uniform(float* data, int64_t n, uint64_t seed);

// The values an input takes: floats uniform in [low, high); integers uniform over the whole
// numbers in [low, high); every element `low` when low == high. An op picks ranges that exercise
// its arithmetic (a quantized conv's scales small enough that its outputs do not all saturate).
struct FillRange {
  double low = -1, high = 1;
};

// Floats [-1, 1); 8-bit integers their whole range; wider integers 0 (an index in range of any
// gather).
FillRange default_fill_range(int32_t dtype_code, int32_t dtype_bits);

// Throws std::invalid_argument naming what is wrong when `r` is not finite, has low > high, or
// leaves the range of the element type (dtype codes of kernel_abi.h; floats of 32 or 64 bits,
// integers of 8, 32 or 64).
void check_fill_range(FillRange r, int32_t dtype_code, int32_t dtype_bits);

// n elements of the given type from `seed`, within `r` (which check_fill_range accepts).
void fill_tensor(void* data, int64_t n, int32_t dtype_code, int32_t dtype_bits, FillRange r, uint64_t seed);

// Element i of a typed buffer as a double.
double element_value(const void* data, int32_t dtype_code, int32_t dtype_bits, int64_t i);

// The seed of input `index` of a workload whose inputs come from `seed`.
inline uint64_t input_seed(uint64_t seed, int index) {
  return seed * 1000003u + static_cast<uint64_t>(index) * 7919u + 1;
}

}  // namespace tf::runtime

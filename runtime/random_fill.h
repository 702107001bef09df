// Deterministic random tensor contents, identical in every process that asks for the same seed: the
// compiler computes a workload's reference output from them once, and a measuring worker (on a
// board, without the compiler) regenerates the same inputs from the seed alone.
#pragma once

#include <cstdint>

namespace tf::runtime {

// Uniform in [-1, 1), float32.
void fill_uniform(float* data, int64_t n, uint64_t seed);

// The seed of input `index` of a workload whose inputs come from `seed`.
inline uint64_t input_seed(uint64_t seed, int index) {
  return seed * 1000003u + static_cast<uint64_t>(index) * 7919u + 1;
}

}  // namespace tf::runtime

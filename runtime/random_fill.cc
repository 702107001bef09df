#include "runtime/random_fill.h"

namespace tf::runtime {

void fill_uniform(float* data, int64_t n, uint64_t seed) {
  uint64_t state = seed;
  for (int64_t i = 0; i < n; ++i) {
    // splitmix64: fast, and the same on every platform (std::uniform_real_distribution is not).
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    data[i] = static_cast<float>(static_cast<double>(z >> 40) * (2.0 / 16777216.0) - 1.0);
  }
}

}  // namespace tf::runtime

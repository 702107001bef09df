#include "support/stable_hash.h"

// xxHash's own inline build: its functions compile into this file, so nothing links libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>
#undef XXH_INLINE_ALL

#include <cstdint>
#include <cstdio>

namespace tf {
namespace {

std::string hex_of(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string stable_hash_hex64(std::string_view bytes) { return hex_of(XXH3_64bits(bytes.data(), bytes.size())); }

std::string stable_hash_hex128(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return hex_of(h.high64) + hex_of(h.low64);
}

}  // namespace tf

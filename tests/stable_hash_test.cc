// Stable content hashes (support/stable_hash.h): XXH3's published values, so a library or build
// that hashed differently - orphaning every record hash stored in a database - fails here first.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "support/stable_hash.h"

namespace tf {
namespace {

bool lowercase_hex(const std::string& s) {
  for (char ch : s) {
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  }
  return true;
}

TEST(StableHash, MatchesXxh3sReferenceValues) {
  // xxHash's own test vectors for the empty input (seed 0).
  EXPECT_EQ(stable_hash_hex64(""), "2d06800538d394c2");
  EXPECT_EQ(stable_hash_hex128(""), "99aa06d3014798d86001c324468d497f");
}

TEST(StableHash, IsFixedWidthLowercaseHex) {
  for (const std::string& s : {std::string(), std::string("x"), std::string(10000, 'y')}) {
    const std::string h64 = stable_hash_hex64(s), h128 = stable_hash_hex128(s);
    EXPECT_EQ(h64.size(), 16u) << h64;
    EXPECT_EQ(h128.size(), 32u) << h128;
    EXPECT_TRUE(lowercase_hex(h64)) << h64;
    EXPECT_TRUE(lowercase_hex(h128)) << h128;
  }
}

TEST(StableHash, EveryByteCountsEmbeddedNulsAndTheLengthIncluded) {
  using namespace std::string_literals;
  const std::string inputs[] = {""s, "\0"s, "\0\0"s, "a"s, "a\0"s, "a\0b"s, "a\0c"s, "b\0a"s, "ab"s};
  std::set<std::string> h64, h128;
  for (const std::string& s : inputs) {
    h64.insert(stable_hash_hex64(s));
    h128.insert(stable_hash_hex128(s));
  }
  EXPECT_EQ(h64.size(), std::size(inputs));
  EXPECT_EQ(h128.size(), std::size(inputs));
  EXPECT_EQ(stable_hash_hex128("a\0b"s), stable_hash_hex128("a\0b"s));
}

}  // namespace
}  // namespace tf

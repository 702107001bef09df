// The executables' operator new (support/large_pages): large blocks fault in on huge pages where
// the host's THP mode allows it, small ones are plain malloc, and both free as usual.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// AnonHugePages (kB) of the mapping of /proc/self/smaps that holds address p, or -1.
int64_t huge_kb_of_mapping(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stoll(line.substr(14));
  }
  return -1;
}

TEST(LargePages, ALargeBlockFaultsInOnHugePagesWhereTheHostOffersThem) {
#ifndef TF_LARGE_PAGES
  GTEST_SKIP() << "a sanitizer build keeps the sanitizer's operator new";
#else
  const std::string mode = read_text("/sys/kernel/mm/transparent_hugepage/enabled");
  if (mode.empty() || mode.find("[never]") != std::string::npos) GTEST_SKIP() << "THP is off on this host";
  std::vector<char> block(size_t{64} << 20, 1);  // touched after operator new advised it
  // The advice splits the block's mapping at huge-page boundaries: its middle is the advised part.
  const int64_t huge_kb = huge_kb_of_mapping(block.data() + block.size() / 2);
  ASSERT_GE(huge_kb, 0) << "no mapping holds the block";
  EXPECT_GT(huge_kb, 0) << "a 64 MiB block faulted in on 4 KiB pages only";
#endif
}

TEST(LargePages, SmallAndNothrowBlocksAllocateAndFree) {
  auto small = std::make_unique<int[]>(100);
  small[99] = 7;
  EXPECT_EQ(small[99], 7);
  void* p = ::operator new (size_t{16} << 20, std::nothrow);
  ASSERT_NE(p, nullptr);
  static_cast<char*>(p)[(size_t{16} << 20) - 1] = 1;
  ::operator delete(p);
}

}  // namespace

// allocate_aligned: vector-aligned small buffers; buffers of a MiB or more on 2 MiB boundaries and
// advised onto huge pages, so a model's constants and arena get the layout its kernels were timed on.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/aligned_buffer.h"
#include "runtime/kernel_abi.h"

namespace tf::runtime {
namespace {

// The THPeligible field of the mapping holding `p` in /proc/self/smaps ("" if not found).
std::string thp_eligible(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return line.substr(line.find(':') + 1);
  }
  return "";
}

bool thp_offered() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(f, modes);
  return !modes.empty() && modes.find("[never]") == std::string::npos;
}

TEST(AlignedBuffer, SmallBuffersAreVectorAlignedAndLargeOnesOnHugePageBoundaries) {
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{4096}, (size_t{1} << 20) - 1}) {
    void* p = allocate_aligned(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % TF_BUFFER_ALIGNMENT, 0u) << bytes;
    std::memset(p, 1, bytes);
    std::free(p);
  }
  const size_t big = (size_t{3} << 20) + 5;
  void* p = allocate_aligned(big);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t{2} << 20), 0u);
  std::memset(p, 1, big);
  if (thp_offered()) {
    EXPECT_NE(thp_eligible(p).find('1'), std::string::npos) << "the buffer was not advised onto huge pages";
  }
  std::free(p);
}

}  // namespace
}  // namespace tf::runtime

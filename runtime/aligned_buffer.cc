#include "runtime/aligned_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

#include "runtime/kernel_abi.h"

namespace tf::runtime {

void* allocate_aligned(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const bool huge = bytes >= (size_t{1} << 20);
  const size_t alignment = huge ? kHuge : TF_BUFFER_ALIGNMENT;
  const size_t rounded = std::max((bytes + alignment - 1) / alignment * alignment, alignment);
  void* p = std::aligned_alloc(alignment, rounded);
  if (p && huge) ::madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

}  // namespace tf::runtime

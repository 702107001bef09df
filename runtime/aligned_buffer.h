// Memory for kernel arguments, model arenas, constants and workspaces: aligned for vector loads,
// and a MiB or more on huge pages where the OS offers them (THP "madvise" mode included). With 4 KiB
// pages each process gets another physical layout of a large buffer, so its cache-set conflicts, and
// a kernel's speed, change from one process to the next: a model ran up to a third slower in one
// process than in the next, and than its kernels' timings (made on huge pages) predicted.
#pragma once

#include <cstddef>

namespace tf::runtime {

// At least `bytes` (rounded up to the alignment); free it with std::free. Null when out of memory.
void* allocate_aligned(size_t bytes);

}  // namespace tf::runtime

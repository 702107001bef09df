// Independent calls spread over a few threads: the distinct kernels of a model compiled at once,
// the cost model's features of many configs computed at once.
#pragma once

#include <cstddef>
#include <functional>

namespace tf {

// The threads a CPU-bound fan-out uses by default: this machine's hardware threads, at most `cap`.
size_t hardware_workers(size_t cap);

// Calls fn(i) once for every i in [0, n), on up to `workers` threads (the caller's among them), each
// taking the next index nobody has taken. Once a call throws, no further index starts; after the
// calls under way end, the exception of the lowest failing index is rethrown (the same one
// whatever the threads' timing: every index below it has run).
void parallel_each(size_t n, size_t workers, const std::function<void(size_t)>& fn);

}  // namespace tf

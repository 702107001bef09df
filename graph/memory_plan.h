// Where each activation lives while a model runs: one arena, every buffer at a fixed offset, two
// buffers sharing bytes only when their lifetimes (first write to last read, in step order) never
// meet. Placement is greedy by size, largest first, each at the lowest offset that fits beside the
// buffers already placed whose lifetimes overlap it.
#pragma once

#include <cstdint>
#include <vector>

namespace tf::graph {

struct BufferLifetime {
  int64_t bytes = 0;
  int first_step = 0;  // the step that writes it (-1: a model input, written before the first step)
  int last_step = 0;   // the last step that reads it (the step count for a model output)
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // per buffer, aligned to `alignment`
  int64_t arena_bytes = 0;       // the peak: the arena's size
};

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment);

}  // namespace tf::graph

#include "graph/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace tf::graph {
namespace {

int64_t align_up(int64_t n, int64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

bool lifetimes_meet(const BufferLifetime& a, const BufferLifetime& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });

  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> placed;
  for (size_t i : order) {
    const int64_t size = align_up(std::max<int64_t>(buffers[i].bytes, 1), alignment);
    // The live neighbours' byte ranges, by start: the first gap that holds `size` wins.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t j : placed) {
      if (lifetimes_meet(buffers[i], buffers[j]))
        taken.emplace_back(plan.offsets[j],
                           plan.offsets[j] + align_up(std::max<int64_t>(buffers[j].bytes, 1), alignment));
    }
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : taken) {
      if (begin - offset >= size) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace tf::graph

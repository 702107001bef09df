// Cold-input timing: a kernel timed back to back finds its weights in L2/L3 from the run before,
// while inside a model every layer's weights pass through the caches once per run and come from
// DRAM (a Winograd layer's 9.4 MB transformed weight: 0.55 ms warm, 1.4 ms in ResNet-18). In cold
// mode the worker keeps K copies of the rotated inputs, K x their bytes >= 2 x the last-level
// cache, and each run reads the next copy, so no run finds what it reads cached by the one before.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/last_level_cache.h"
#include "runtime/measure.h"

namespace tf::runtime {

// The most memory the copies of a cold timing may take, all copies together: beyond it the
// measurement fails saying so instead of pushing a board into swap.
constexpr uint64_t kMaxColdBytes = uint64_t{256} << 20;
// The most copies: inputs so small that more would be needed (a depthwise layer's 1 KB weight)
// cost microseconds from memory; 10^5 copies would cost a worker more than that in setup.
constexpr int kMaxColdCopies = 4096;
// The inputs a mode rotates, by argument position. Weights: the inputs after the first that are
// not shaped like the output (a kernel's weight, packed panels, bias); its first input and a
// residual are activations a producer has just written, which a model finds cached too.
std::vector<int> rotated_inputs(const WorkloadSetup& setup, ColdInputs mode);

// K for rotated inputs of `bytes` in all: the fewest copies with K x bytes >= 2 x llc_bytes, at
// most kMaxColdCopies (1 when there is nothing to rotate). Throws std::runtime_error naming the sizes when the copies
// would take more than kMaxColdBytes.
int cold_copies(uint64_t bytes, const LastLevelCache& llc);

}  // namespace tf::runtime

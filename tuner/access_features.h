// What a candidate does to memory, read off its lowered loop nest: around the hottest innermost
// loop and each of the loops enclosing it, how many bytes every buffer touches during one run of
// that loop and how often each touched byte is used again there. These are the quantities that
// decide whether a tile lives in registers, a panel in L1, a block in L2; they mean the same on any
// shape and any operator, which is what lets a model trained on one workload rank another.
#pragma once

#include <vector>

#include "compiler/ir/function.h"

namespace tf::tuner {

// The scale of every count feature: log2(1 + v), 0 for v <= 0.
float log2p(double v);

// Loop levels described, from the hottest innermost loop outwards (missing levels are zeros).
constexpr int kAccessLevels = 5;
// Memory buffers described per level, the largest footprints first.
constexpr int kAccessBuffersPerLevel = 3;

// Per level: log2 extent, parallel flag, log2 bytes of all memory buffers, log2 bytes of stack
// (register-tile) buffers, then for the largest memory buffers log2 bytes and log2 reuse; after the
// levels: float operations per iteration of the hottest loop, memory accesses per iteration, and
// their ratio. Always access_feature_count() values.
std::vector<float> access_features(const ir::LoweredFunc& func);
int access_feature_count();

}  // namespace tf::tuner

// What the cost model sees of a candidate: its knob values, and a summary of its lowered loop nest
// that means the same thing on any shape (so a model trained on one workload helps on another).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/compiler.h"

namespace tf::tuner {

// Bump when the feature layout changes: stored models are keyed by it.
constexpr int64_t kFeatureVersion = 2;

// log2-scaled knob values: integers as log2(1+v), booleans 0/1, strings their choice index.
std::vector<float> knob_features(const space::Config& cfg);

// Loop-nest summary of the rolled nest (lower::LowerStage::Rolled) (all log2-scaled where a count): work done by vector and by
// scalar stores, vector width, loads per store, guards executed, register-tile (stack) bytes, heap
// bytes, parallel extent, innermost loop extents, nest depth, statement count.
std::vector<float> loop_nest_features(const ir::LoweredFunc& f);

// All of them for a config of a task: knobs, loop-nest summary, memory access (access_features.h).
// Lowers the config. Never throws: a config that fails to lower gets zeros.
std::vector<float> candidate_features(const compiler::Task& task, const space::Config& cfg);

}  // namespace tf::tuner

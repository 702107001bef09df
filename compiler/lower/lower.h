// Lowering: a scheduled tensor computation to a loop-nest function ready for code generation.
#pragma once

#include <string>

#include "compiler/ir/function.h"
#include "compiler/schedule/schedule.h"

namespace tf::lower {

// How far lowering goes. Code generation needs Full; the cost model's features read Rolled, which is
// about fifty times cheaper because unrolling is what multiplies the IR.
enum class LowerStage {
  Scheduled,  // the loop nest as scheduled, no passes (tests, `tunefarm lower --raw`)
  Rolled,     // simplified, split-overhang guards hoisted; unrolled and vectorized loops still loops
  Full,       // every pass: ready for code generation
};

struct LowerOptions {
  LowerStage stage = LowerStage::Full;
};

ir::LoweredFunc lower(const schedule::Schedule& s, const std::string& name, const LowerOptions& opts = {});

}  // namespace tf::lower

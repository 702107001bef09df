// Lowering: a scheduled tensor computation to a loop-nest function ready for code generation.
#pragma once

#include <functional>
#include <string>
#include <vector>

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

// Called with the kernel as schedule_ops built it ("schedule_ops") and after each pass that runs,
// with the pass's name: what `tunefarm lower --dump-after` prints.
using PassObserver = std::function<void(const std::string& pass, const ir::LoweredFunc& f)>;

struct LowerOptions {
  LowerStage stage = LowerStage::Full;
  PassObserver after_pass;
};

// In builds with assertions (NDEBUG undefined) the kernel is checked after every pass
// (ir/verify.h), and a CompileError names the pass that broke it.
ir::LoweredFunc lower(const schedule::Schedule& s, const std::string& name, const LowerOptions& opts = {});

// What after_pass is called with, each name once, in the order lowering first reaches it:
// "schedule_ops", then the passes (simplify and partition_loops run more than once).
std::vector<std::string> lower_pass_names();

}  // namespace tf::lower

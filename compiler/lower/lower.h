// Lowering: a scheduled tensor computation to a loop-nest function ready for code generation.
#pragma once

#include <string>

#include "compiler/ir/function.h"
#include "compiler/schedule/schedule.h"

namespace tf::lower {

struct LowerOptions {
  // Off only for tests and `tunefarm lower --raw`, which show the nest as scheduled.
  bool run_passes = true;
};

ir::LoweredFunc lower(const schedule::Schedule& s, const std::string& name, const LowerOptions& opts = {});

}  // namespace tf::lower

// Turns a scheduled computation into one loop nest: a loop per leaf axis of each stage, attached
// stages placed inside their consumer's loop with a buffer the size of their region, reductions
// split into an init nest and an update nest, and tensor reads flattened into buffer loads.
#pragma once

#include <unordered_map>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/lower/bound.h"

namespace tf::lower {

// args: the inputs in the order the computation first reads them, then the outputs.
ir::LoweredFunc schedule_ops(const schedule::Schedule& s,
                             const std::unordered_map<const schedule::Stage*, ir::Expr>& bodies, const Bounds& bounds,
                             const std::string& name);

}  // namespace tf::lower

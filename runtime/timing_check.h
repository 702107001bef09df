// The one check of a measured timing, applied wherever timings enter: a worker's result, a board's
// result at the tracker, an imported record, a write to the database. A timing that fails it is a
// failed trial, never a cost: a NaN, zero or negative cost would sort as the best config.
#pragma once

#include <string>
#include <vector>

namespace tf::runtime {

// The least a run can take, in seconds. A call through the checked C-ABI entry alone costs several
// nanoseconds (argument checks, an indirect call, the return), so anything under one nanosecond
// per run is a broken clock or a forged record, not a fast kernel. A per-op floor from FLOPs and a
// peak rate would be tighter, but the runtime (and a board) does not know the FLOPs.
constexpr double kMinRunSeconds = 1e-9;

// Empty when every cost of a successful measurement is usable; otherwise why not, naming the first
// bad cost ("cost 2 of 3 is nan").
std::string timing_problem(const std::vector<double>& costs);

}  // namespace tf::runtime

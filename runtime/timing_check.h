// The checks of a measured timing, applied wherever timings enter: a worker's result, a board's
// result at the tracker, an imported record, a write to the database. A timing that fails them is
// a failed trial, never a cost: a NaN, zero or negative cost would sort as the best config, and a
// forged one would replace a user's best.
#pragma once

#include <string>
#include <vector>

#include "runtime/measure.h"

namespace tf::runtime {

// The least a run can take, in seconds. A call through the checked C-ABI entry alone costs several
// nanoseconds (argument checks, an indirect call, the return), so anything under one nanosecond
// per run is a broken clock or a forged record, not a fast kernel. Where the work and the
// machine's peak are known, speed_problem is the tighter check.
constexpr double kMinRunSeconds = 1e-9;

// How far past the machine's measured FMA peak a kernel's apparent rate may go. Operators are
// counted at their direct algorithm's FLOPs, so a kernel that multiplies less (Winograd's
// F(6x6,3x3) does about a quarter of the multiplies) or uses denser instructions (int8 dot
// products do four times the FP32 work per instruction) may appear faster than the peak; nothing
// appears eight times faster.
constexpr double kMaxSpeedOverPeak = 8;

// Empty when every cost of a successful measurement is usable; otherwise why not, naming the first
// bad cost ("cost 2 of 3 is nan").
std::string timing_problem(const std::vector<double>& costs);

// Empty when a successful result is one a measurement with the options `asked` can produce: usable
// costs, one per repeat asked for, and a number of runs per timing in 1..kMaxNumber (the number
// asked for, when one was).
std::string result_problem(const MeasureResult& r, const MeasureOptions& asked);

// Empty unless `flops` per run done in `seconds` is more than kMaxSpeedOverPeak times `peak_gflops`
// (the measuring machine's, for all the threads the kernel uses); then what the rate would be.
// Either figure unknown (0) passes.
std::string speed_problem(double flops, double seconds, double peak_gflops);

}  // namespace tf::runtime

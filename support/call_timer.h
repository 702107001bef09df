// The in-process timing protocol of `tunefarm run` and the benchmarks' peers: one warm-up call,
// then `number` back-to-back calls per timing, `number` grown until one timing lasts min_ms, so
// a short kernel is not measured at the clock's resolution. The tuner's measurements on boards
// (worker processes, cache flush, cool-down) follow their own protocol in runtime/.
#pragma once

#include <functional>
#include <vector>

namespace tf {

// Seconds per call: `repeat` timings, each of `number` calls.
std::vector<double> time_calls(const std::function<void()>& call, double min_ms, int repeat);

}  // namespace tf

// Timing a compiled model the one way `tunefarm model bench` and bench/models_bench do: a warm-up
// run, then whole plans run back to back with each step timed. The caller holds the host-wide
// timing lock (runtime/host_lock.h) and has filled the inputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/model/executor.h"

namespace tf::runtime::model {

struct ModelTiming {
  std::vector<double> totals;                 // seconds per run: the sum of its steps
  std::vector<std::vector<double>> per_step;  // seconds per step, one entry per run

  double min_ms() const;
  double median_ms() const;
};

// Fills every input in place, the inputs `tunefarm model bench` times: float32 ones with uniform
// [-1, 1) data (input i from runtime::input_seed(seed, i)), integer and bool ones with zeros (a
// token id or an index of 0 is in range for any model). Returns them by input name, to hand a
// peer the same.
HostTensors fill_random_inputs(Executor& exec, uint64_t seed = 1);

// `runs` > 0: exactly that many runs; 0: as many as fit in `min_seconds`, at least `min_runs`.
// Throws ModelFileError naming the step whose kernel reports an error.
ModelTiming time_model(Executor& exec, int runs, double min_seconds, int min_runs = 10);

}  // namespace tf::runtime::model

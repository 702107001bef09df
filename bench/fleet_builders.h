// The builders' part of the fleet benchmark: trials per second through one tracker with 0, 1 and 2
// real builders (tunefarm-builder) and the tracker's CPU per trial, then a tracker with many
// synthetic boards and synthetic builders (load-test modes: nothing compiled, nothing measured).
#pragma once

#include <cstdint>
#include <string>

#include "bench/bench_util.h"

namespace tf::bench {

struct BuildersBenchOptions {
  std::string dir;  // scratch folder
  int64_t real_trials = 200;
  int64_t synthetic_trials = 8000;
  int synthetic_boards = 1000, synthetic_builders = 100;
};

void bench_builders(const BuildersBenchOptions& options, Json* rows, Targets* targets);

}  // namespace tf::bench

// The measurement options of every command that tunes or times kernels (tune, submit, run, the
// benchmarks): declared here once, with their ranges, so each command spells and checks them alike.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace tf {

struct MeasureArgs {
  int64_t trials = 200;       // --trials: candidates to measure per workload
  std::string tuner = "xgb";  // --tuner: xgb | random | grid | ga
  uint64_t seed = 1;          // --seed: the tuner's and the random inputs'
  double min_ms = 20;         // --min-ms: each timing repeats the kernel until it lasts this long
  int repeat = 3;             // --repeat: timings per candidate
  double timeout_s = 10;      // --timeout: hard limit per candidate, seconds
  // --cold-inputs: off | weights | all (runtime/cold_inputs.h); a model's kernels are timed with
  // their weights cold, as the model runs them
  std::string cold_inputs = "off";
};

// Which of the options a command takes.
enum MeasureOption : unsigned {
  kTrials = 1u << 0,
  kTuner = 1u << 1,
  kSeed = 1u << 2,
  kMinMs = 1u << 3,
  kRepeat = 1u << 4,
  kTimeout = 1u << 5,
  kCold = 1u << 6,
  kTuning = kTrials | kTuner | kSeed | kMinMs | kRepeat | kTimeout,
  kTiming = kMinMs | kRepeat,
};

// Declares the options in `which` on `app`, bound to `out`; out's values are the defaults --help
// shows. Values outside the ranges are refused while parsing.
void add_measure_options(CLI::App& app, MeasureArgs& out, unsigned which);

}  // namespace tf

#include "support/measure_args.h"

namespace tf {

void add_measure_options(CLI::App& app, MeasureArgs& out, unsigned which) {
  if (which & kTrials) {
    app.add_option("--trials", out.trials, "candidates to measure per workload")
        ->type_name("N")
        ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  }
  if (which & kTuner) {
    app.add_option("--tuner", out.tuner, "xgb | random | grid | ga")
        ->type_name("NAME")
        ->check(CLI::IsMember({"xgb", "random", "grid", "ga"}));
  }
  if (which & kSeed) app.add_option("--seed", out.seed, "seed of the tuner and of the random inputs")->type_name("S");
  if (which & kMinMs) {
    app.add_option("--min-ms", out.min_ms, "each timing repeats the kernel until it lasts this long")
        ->type_name("MS")
        ->check(CLI::Range(0.0, 60000.0));
  }
  if (which & kRepeat)
    app.add_option("--repeat", out.repeat, "timings per candidate")->type_name("N")->check(CLI::Range(1, 1000));
  if (which & kTimeout) {
    app.add_option("--timeout", out.timeout_s, "hard limit per candidate, seconds")
        ->type_name("S")
        ->check(CLI::Range(1.0, 3600.0));
  }
  if (which & kCold) {
    app.add_option(
           "--cold-inputs", out.cold_inputs,
           "which inputs every timed run reads from memory rather than from the caches the run before filled: off, weights "
           "(as inside a model) or all")
        ->type_name("WHICH")
        ->check(CLI::IsMember({"off", "weights", "all"}));
  }
}

}  // namespace tf

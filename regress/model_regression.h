// Model-level CI verdicts: a whole compiled model against a baseline's stored one, timed in turn on
// this host, round after round (each round: the baseline's model, then the current one, a few runs
// each, their median), so each round's pair is taken moments apart; the verdict rests on the same
// paired speed ratio as a kernel's (regress/paired_ratio.h).
#pragma once

#include <string>
#include <vector>

#include "regress/regression_run.h"
#include "runtime/model/model_file.h"

namespace tf::regress {

struct ModelTimingSettings {
  int rounds = 15;
  int runs_per_turn = 5;  // runs of one model per turn; the turn's time is their median
  int threads = 1;
  std::string lock_file;  // the host-wide timing lock, held while timing (empty: none)
};

// Seconds per run of the model: one median of `runs_per_turn` runs per round (baseline save).
std::vector<double> time_model_rounds(const runtime::model::ModelFile& model, const ModelTimingSettings& s);

// The model of `current` against the baseline's: the verdict of their paired speed ratio. `flops`:
// the model's kernel work (for the report's effective GFLOPS). A model that fails to load or run is
// "broken" (current) or "failed" (the baseline's, or the run).
WorkloadVerdict compare_models(const db::ModelBaseline& baseline, const runtime::model::ModelFile& current,
                               int64_t flops, double threshold, const ModelTimingSettings& s);

}  // namespace tf::regress

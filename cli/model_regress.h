// Model-level CI verdicts (`tunefarm baseline save --model` and `tunefarm regress --model`): the
// whole model built from the database's best configs, stored compiled, and later timed in turn with
// a build of the day on this host (regress/model_regression.h). Same verdicts, exit codes and
// reports as a kernel suite's.
#pragma once

#include <optional>
#include <string>

#include "cli/input_shape_args.h"
#include "regress/regression_run.h"
#include "support/args.h"

namespace tf::cli {

struct ModelRegressArgs {
  std::string model;  // the .onnx file; empty: a kernel suite's run
  InputShapeArgs shapes;
  int threads = 1;
};

void add_model_regress_options(CLI::App& cmd, ModelRegressArgs& a);

// Builds the model with `db_path`'s best configs (this host's device key at a.threads), times it
// `rounds` times and stores it as model baseline `name`. 0, or 2 when nothing was stored.
int save_model_baseline(const ModelRegressArgs& a, const std::string& db_path, const std::string& name, bool replace,
                        int rounds, bool as_json);

// The model built now against model baseline `baseline`, interleaved on this host. Throws
// regress::RunError when the baseline does not exist or is of another model.
regress::RegressReport model_regress(const ModelRegressArgs& a, const std::string& db_path, const std::string& baseline,
                                     std::optional<double> threshold, int rounds);

// The model baselines of a db as `tunefarm baseline list` shows them (one JSON object each).
Json model_baselines_json(const std::string& db_path);

}  // namespace tf::cli

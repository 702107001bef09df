// The `tunefarm` subcommands. Each add_* declares its subcommand (options bound to state its run
// function owns) on the `tunefarm` app and registers what runs when it is chosen. A run returns
// the process exit code: 0 success, 1 a failed check, 2 bad input.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "support/args.h"

namespace tf::cli {

class Commands {
 public:
  using Run = std::function<int()>;
  void on(const CLI::App* command, Run run) { runs_[command] = std::move(run); }
  const Run* find(const CLI::App* command) const {
    auto it = runs_.find(command);
    return it == runs_.end() ? nullptr : &it->second;
  }

 private:
  std::map<const CLI::App*, Run> runs_;
};

void add_ops(CLI::App& tunefarm, Commands& commands);
void add_space(CLI::App& tunefarm, Commands& commands);
void add_lower(CLI::App& tunefarm, Commands& commands);
void add_run(CLI::App& tunefarm, Commands& commands);
void add_tune(CLI::App& tunefarm, Commands& commands);
// The database (cmd_records.cc): best, history, export, import, plot.
void add_records(CLI::App& tunefarm, Commands& commands);
// The fleet (cmd_fleet.cc), against a tracker: submit, status, devices, cancel, token.
void add_fleet(CLI::App& tunefarm, Commands& commands);
// CI regression runs (cmd_regress.cc): baseline save|list|show|delete, regress.
void add_regress(CLI::App& tunefarm, Commands& commands);
// Whole models (cmd_model.cc): inspect.
void add_model(CLI::App& tunefarm, Commands& commands);

// Compiled models (cmd_model_run.cc): `model run` and `model bench` under the `model` command.
void add_model_run(CLI::App& model, Commands& commands);
// `model build` (cmd_model_build.cc): ONNX -> .tfm.
void add_model_build(CLI::App& model, Commands& commands);
// `model tune` (cmd_model_tune.cc): a model's kernels as one tuning job.
void add_model_tune(CLI::App& model, Commands& commands);

struct TrackerArgs;
// `tunefarm best --key KEY [--tracker HOST:PORT] [--timing T]`, answered by the tracker; `timing`
// empty: any.
int best_from_tracker(const TrackerArgs& tracker, const std::string& key, const std::string& op,
                      const std::vector<int64_t>& shape, const std::string& timing, bool as_json);

}  // namespace tf::cli

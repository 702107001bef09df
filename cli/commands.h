// The `tunefarm` subcommands. Each returns the process exit code: 0 success, 1 a failed check,
// 2 bad input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/args.h"

namespace tf::cli {

int cmd_space(const std::vector<std::string>& argv);
int cmd_lower(const std::vector<std::string>& argv);
int cmd_run(const std::vector<std::string>& argv);
int cmd_ops(const std::vector<std::string>& argv);
int cmd_tune(const std::vector<std::string>& argv);
int cmd_best(const std::vector<std::string>& argv);
int cmd_history(const std::vector<std::string>& argv);
int cmd_export(const std::vector<std::string>& argv);
int cmd_import(const std::vector<std::string>& argv);
int cmd_plot(const std::vector<std::string>& argv);
// The fleet (cmd_fleet.cc): against a tracker.
int cmd_submit(const std::vector<std::string>& argv);
int cmd_status(const std::vector<std::string>& argv);
int cmd_devices(const std::vector<std::string>& argv);
int cmd_cancel(const std::vector<std::string>& argv);
int cmd_token(const std::vector<std::string>& argv);
// CI regression runs (cmd_regress.cc).
int cmd_baseline(const std::vector<std::string>& argv);
int cmd_regress(const std::vector<std::string>& argv);

// `tunefarm best --key KEY [--tracker HOST:PORT]`, answered by the tracker.
int best_from_tracker(const Args& args, const std::string& op, const std::vector<int64_t>& shape);

}  // namespace tf::cli

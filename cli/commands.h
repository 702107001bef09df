// The `tunefarm` subcommands. Each returns the process exit code: 0 success, 1 a failed check,
// 2 bad input.
#pragma once

#include <string>
#include <vector>

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

}  // namespace tf::cli

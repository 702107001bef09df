// The options every compiler subcommand shares: --op, --shape, --target, --config.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/measure.h"
#include "support/args.h"

namespace tf::cli {

struct WorkloadArgs {
  std::string op = "dense";
  // As typed: positional ("512,512,512") or named ("n=1,c=64,h=56,..."); parsed once the op is known.
  std::string shape;
  std::string target = "native";
  CLI::Option* shape_option = nullptr;
};

struct ConfigArgs {
  std::string config = "default";
  int64_t config_index = 0;
  std::string db = "tunefarm.db";
  int threads = 1;  // the thread count measurements were recorded under (each is tuned apart)
  std::string key;  // a fleet's device key: its boards' measurements instead of local ones
  CLI::Option* config_option = nullptr;
  CLI::Option* index_option = nullptr;
};

void add_workload_options(CLI::App& app, WorkloadArgs& out);
// --threads N (1..1024).
CLI::Option* add_threads_option(CLI::App& app, int& out, const std::string& help);
// --timing warm|cold-weights|cold-all (runtime::timing_name): which timing of records to read.
CLI::Option* add_timing_option(CLI::App& app, std::string& out, const std::string& help);
// The timing a --timing value names; nullopt when it was not given ("").
std::optional<runtime::ColdInputs> timing_of_option(const std::string& text);
// --config, --config-index, --db, --key (not --threads: each command says what its threads mean).
void add_config_options(CLI::App& app, ConfigArgs& out);
// The positional shape of --shape for --op; UsageError naming --shape when it is missing or wrong.
std::vector<int64_t> parse_shape_option(const std::string& op, const std::string& text);
std::unique_ptr<compiler::Task> make_task(const WorkloadArgs& args);
// The device key measurements were recorded under: local, one per thread count (tuner::local_device_key).
std::string device_key_of(int threads);
// From --config JSON|default|best, --config-index N. `best` prefers records timed as `timing` says
// (how the caller will time the kernel), else the best of any timing, saying so on stderr.
space::Config config_from_args(const ConfigArgs& args, const compiler::Task& task,
                               runtime::ColdInputs timing = runtime::ColdInputs::Off);

}  // namespace tf::cli

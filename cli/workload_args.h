// The options every compiler subcommand shares: --op, --shape, --target, --config.
#pragma once

#include <memory>
#include <string>

#include "support/args.h"
#include "compiler/compiler.h"

namespace tf::cli {

void add_workload_options(Args& args);
void add_config_options(Args& args);
std::unique_ptr<compiler::Task> make_task(const Args& args);
// The device key measurements were recorded under: local, one per --threads (tuner::local_device_key).
std::string device_key_from_args(const Args& args);
// From --config JSON|default|best, --config-index N.
space::Config config_from_args(const Args& args, const compiler::Task& task);

}  // namespace tf::cli

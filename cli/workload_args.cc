#include "cli/workload_args.h"

namespace tf::cli {

void add_workload_options(Args& args) {
  args.option("op", "NAME", "operator (see tunefarm ops)", "dense")
      .option("shape", "M,N,K", "extents of the workload, comma-separated")
      .option("target", "TARGET", "\"llvm -mtriple=... -mcpu=... -mattr=...\"", "llvm -mcpu=native");
}

void add_config_options(Args& args) {
  args.option("config", "CONFIG", "a JSON object of knob values, or 'default'", "default")
      .option("config-index", "N", "the N-th config of the space (see tunefarm space)");
}

std::unique_ptr<compiler::Task> make_task(const Args& args) {
  ops::Workload w{args.get("op"), args.get_int_list("shape")};
  return std::make_unique<compiler::Task>(w, codegen::parse_target(args.get("target")));
}

space::Config config_from_args(const Args& args, const compiler::Task& task) {
  if (args.has("config-index")) {
    if (args.has("config")) throw UsageError("give --config or --config-index, not both");
    return task.space().at(args.get_int("config-index"));
  }
  return task.parse_config(args.get("config"));
}

}  // namespace tf::cli

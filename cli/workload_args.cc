#include "cli/workload_args.h"

#include "cli/open_db.h"

#include <unistd.h>

#include "db/database.h"
#include "tuner/tune_job.h"

namespace tf::cli {

void add_workload_options(Args& args) {
  args.option("op", "NAME", "operator (see tunefarm ops)", "dense")
      .option("shape", "M,N,K", "extents of the workload, comma-separated")
      .option("target", "TARGET", "\"llvm -mtriple=... -mcpu=... -mattr=...\"", "llvm -mcpu=native");
}

void add_config_options(Args& args) {
  args.option("config", "CONFIG", "a JSON object of knob values, 'default', or 'best' (from --db)", "default")
      .option("config-index", "N", "the N-th config of the space (see tunefarm space)")
      .option("db", "PATH", "tuning database, for --config best", "tunefarm.db");
}

std::string device_key_from_args(const Args& args) {
  return tuner::local_device_key(args.has("threads") ? static_cast<int>(args.get_int("threads")) : 1);
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
  if (args.get("config") == "best") {
    auto db_handle = open_existing_db(args.get("db"), DbUse::Read);
    db::Database& database = *db_handle;
    const std::string device = device_key_from_args(args);
    auto best = database.best(task.workload().op, task.workload().shape, task.target().str(), device);
    if (!best) {
      throw UsageError("--config best: " + args.get("db") + " has no successful measurement of " + task.workload().str() +
                       " on " + task.target().str() + " as device " + device + " (run tunefarm tune first, with the same --threads)");
    }
    return task.space().from_json(best->config);
  }
  return task.parse_config(args.get("config"));
}

}  // namespace tf::cli

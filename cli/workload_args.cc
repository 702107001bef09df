#include "cli/workload_args.h"

#include <unistd.h>

#include "cli/open_db.h"
#include "compiler/error.h"
#include "db/database.h"
#include "support/json.h"
#include "tuner/best_configs.h"
#include "tuner/tune_job.h"

namespace tf::cli {

void add_workload_options(CLI::App& app, WorkloadArgs& out) {
  app.add_option("--op", out.op, "operator (see tunefarm ops)")->type_name("NAME");
  out.shape_option =
      app.add_option(
             "--shape", out.shape,
             "extents of the workload: positional (512,512,512) or named (n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1)")
          ->type_name("SHAPE");
  app.add_option(
         "--target", out.target,
         "native (this host, named as a board on it names itself), or \"llvm -mtriple=... -mcpu=... -mattr=...\"")
      ->type_name("TARGET");
}

CLI::Option* add_threads_option(CLI::App& app, int& out, const std::string& help) {
  return app.add_option("--threads", out, help)->type_name("N")->check(CLI::Range(1, 1024));
}

CLI::Option* add_timing_option(CLI::App& app, std::string& out, const std::string& help) {
  std::vector<std::string> names;
  for (auto c : {runtime::ColdInputs::Off, runtime::ColdInputs::Weights, runtime::ColdInputs::All})
    names.push_back(runtime::timing_name(c));
  return app.add_option("--timing", out, help)->type_name("TIMING")->check(CLI::IsMember(names));
}

std::optional<runtime::ColdInputs> timing_of_option(const std::string& text) {
  if (text.empty()) return std::nullopt;
  runtime::ColdInputs c;
  if (!runtime::parse_timing(text, &c))
    throw UsageError("--timing: '" + text + "' is not one of warm, cold-weights, cold-all");
  return c;
}

void add_config_options(CLI::App& app, ConfigArgs& out) {
  out.config_option =
      app.add_option(
             "--config", out.config,
             "a JSON object of knob values, 'default', or 'best' (from --db: the fastest timed as this command times, else of any timing)")
          ->type_name("CONFIG");
  out.index_option =
      app.add_option("--config-index", out.config_index, "the N-th config of the space (see tunefarm space)")
          ->type_name("N")
          ->check(CLI::NonNegativeNumber);
  out.index_option->excludes(out.config_option);
  app.add_option("--db", out.db, "tuning database for --config best: a SQLite file or postgresql://USER@HOST:PORT/NAME")
      ->type_name("PATH|URL");
  app.add_option("--key", out.key,
                 "--config best from what the boards of this device key measured (a fleet's db), "
                 "not from local tuning")
      ->type_name("KEY");
}

std::string device_key_of(int threads) { return tuner::local_device_key(threads); }

std::vector<int64_t> parse_shape_option(const std::string& op, const std::string& text) {
  if (text.empty()) throw UsageError("--shape is required");
  try {
    return ops::parse_shape(op, text);
  } catch (const CompileError& e) {
    throw UsageError(std::string("--shape: ") + e.what());
  }
}

std::unique_ptr<compiler::Task> make_task(const WorkloadArgs& args) {
  ops::Workload w{args.op, parse_shape_option(args.op, args.shape)};
  return std::make_unique<compiler::Task>(w, codegen::parse_target(args.target));
}

space::Config config_from_args(const ConfigArgs& args, const compiler::Task& task, runtime::ColdInputs timing) {
  if (args.index_option->count()) return task.space().at(args.config_index);
  if (args.config == "best") {
    auto db_handle = open_existing_db(args.db, DbUse::Read);
    db::Database& database = *db_handle;
    const std::string device = args.key.empty() ? device_key_of(args.threads) : args.key;
    const tuner::BestConfigs best_configs(&database, task.target().str(), device, timing);
    const std::optional<std::string> best = best_configs.config(task.workload());
    if (!best) {
      throw UsageError("--config best: " + args.db + " has no successful measurement of " + task.workload().str() +
                       " on " + task.target().str() + " as device " + device +
                       (args.key.empty() ? " (run tunefarm tune first, with the same --threads)"
                                         : " (tune it on that fleet first)"));
    }
    if (!best_configs.other_timings().empty()) {
      std::fprintf(stderr, "tunefarm: --config best: no record of %s timed %s; using its best timed otherwise\n",
                   task.workload().str().c_str(), runtime::timing_name(timing));
    }
    return task.space().from_json(parse_json(*best));
  }
  return task.parse_config(args.config);
}

}  // namespace tf::cli

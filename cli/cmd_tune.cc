// tunefarm tune: a local tuning job (tuner/tune_job.h), with a live progress line.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/open_db.h"
#include "cli/workload_args.h"
#include "db/database.h"
#include "regress/suite.h"
#include "runtime/measure.h"
#include "support/measure_args.h"
#include "tuner/tune_job.h"

namespace tf::cli {

namespace {

Json result_json(const compiler::Task& task, const tuner::TuneOptions& opts, const tuner::TuneResult& r,
                 const std::string& db) {
  Json out = Json::object();
  out["workload"] = task.workload().str();
  out["target"] = task.target().str();
  out["tuner"] = opts.tuner;
  out["trials"] = r.trials;
  out["ok"] = r.ok;
  out["failed"] = r.failed;
  out["best_gflops"] = r.best_gflops;
  out["best_config"] = r.best ? r.best->config : Json();
  out["seconds"] = r.seconds;
  out["build_ms_median"] = r.build_ms_median;
  out["overhead_ms_median"] = r.overhead_ms_median;
  out["search_ms_per_trial"] = r.search_ms_per_trial;
  out["timing_isolation"] = r.timing_isolation;
  if (!r.transfer.empty()) out["started_from"] = r.transfer;
  out["confirmed"] = r.confirmed;
  out["db"] = db;
  return out;
}

void print_result(const compiler::Task& task, const tuner::TuneOptions& opts, const tuner::TuneResult& r,
                  const std::string& db) {
  std::printf("%s on %s: %lld trials (%lld ok, %lld failed) in %.1f s with the %s tuner\n",
              task.workload().str().c_str(), task.target().str().c_str(), static_cast<long long>(r.trials),
              static_cast<long long>(r.ok), static_cast<long long>(r.failed), r.seconds, opts.tuner.c_str());
  std::printf("best: %.1f GFLOPS  config %s\n", r.best_gflops, r.best ? r.best->config.dump().c_str() : "none");
  std::printf(
      "per trial (median): build %.1f ms (overlapped), wall time beyond the kernel's timed runs %.1f ms; search %.1f ms\n",
      r.build_ms_median, r.overhead_ms_median, r.search_ms_per_trial);
  if (r.confirmed > 0) {
    std::printf("confirmed: the %lld fastest measured again in a fresh worker; best ranked on both measurements\n",
                static_cast<long long>(r.confirmed));
  }
  if (!r.transfer.empty()) std::printf("started from: %s\n", r.transfer.c_str());
  std::printf("timing isolation: %s\nrecorded in %s\n", r.timing_isolation.c_str(), db.c_str());
}

struct TuneCommandOptions {
  WorkloadArgs workload;
  MeasureArgs measure;
  std::string db = "tunefarm.db";
  int threads = 1;
  int batch = 16;
  int compile_threads = 0;
  int confirm = 3;
  std::string suite;
  bool no_seed_records = false, no_timing_lock = false, json = false;
  CLI::Option* target_option = nullptr;
  CLI::Option* threads_option = nullptr;
};

// With --suite: its workloads, built for its target and measured with its threads (as baseline and
// regress measure them), unless the command line says otherwise.
std::vector<std::unique_ptr<compiler::Task>> suite_tasks(TuneCommandOptions& o) {
  regress::Suite suite;
  try {
    suite = regress::load_suite(o.suite);
  } catch (const regress::SuiteError& e) {
    throw UsageError(e.what());
  }
  if (!o.target_option->count() && !suite.target.empty()) o.workload.target = suite.target;
  if (!o.threads_option->count()) o.threads = suite.threads;
  const codegen::Target target = codegen::parse_target(o.workload.target);
  std::vector<std::unique_ptr<compiler::Task>> tasks;
  for (const auto& w : suite.workloads) tasks.push_back(std::make_unique<compiler::Task>(w.workload, target));
  return tasks;
}

int tune_command(TuneCommandOptions& o) {
  std::vector<std::unique_ptr<compiler::Task>> tasks;
  if (!o.suite.empty()) {
    tasks = suite_tasks(o);
  } else {
    tasks.push_back(make_task(o.workload));
  }
  tuner::TuneOptions opts;
  opts.tuner = o.measure.tuner;
  opts.trials = o.measure.trials;
  opts.threads = o.threads;
  opts.device_key = tuner::local_device_key(opts.threads);
  opts.seed = o.measure.seed;
  opts.batch = o.batch;
  opts.compile_threads = o.compile_threads;
  opts.measure.min_repeat_ms = o.measure.min_ms;
  opts.measure.repeat = o.measure.repeat;
  opts.measure.timeout_s = o.measure.timeout_s;
  runtime::parse_cold_inputs(o.measure.cold_inputs, &opts.measure.cold_inputs);
  opts.seed_records = !o.no_seed_records;
  opts.confirm_top = o.confirm;
  if (o.no_timing_lock) opts.measure.timing_lock.clear();
  if (std::string bad = runtime::measure_options_error(opts.measure); !bad.empty())
    throw UsageError("measure options: " + bad);
  auto db_handle = open_or_create_db(o.db);
  db::Database& database = *db_handle;

  const bool json = o.json;
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  auto progress = [&](const tuner::Progress& p) {
    if (json && !tty) return;
    std::fprintf(stderr, "%strial %lld/%lld  %-13s %8.1f GFLOPS  best %8.1f  %6.1f s  ETA %5.0f s%s", tty ? "\r" : "",
                 static_cast<long long>(p.trial), static_cast<long long>(p.trials), p.outcome.c_str(), p.gflops,
                 p.best_gflops, p.elapsed_s, p.eta_s, tty ? "" : "\n");
    std::fflush(stderr);
  };
  Json results = Json::array();
  bool all_ok = true;
  for (const auto& task : tasks) {
    tuner::TuneResult r = tuner::tune(*task, opts, &database, progress);
    if (tty && !json) std::fprintf(stderr, "\n");
    all_ok &= r.ok > 0;
    if (json) {
      results.push_back(result_json(*task, opts, r, o.db));
    } else {
      print_result(*task, opts, r, o.db);
    }
  }
  if (json) std::printf("%s\n", (tasks.size() == 1 ? results.front() : results).dump(2).c_str());
  return all_ok ? 0 : 1;
}

}  // namespace

void add_tune(CLI::App& tunefarm, Commands& commands) {
  auto o = std::make_shared<TuneCommandOptions>();
  CLI::App* cmd = tunefarm.add_subcommand("tune", "search a workload's config space, measuring in a worker process");
  cmd->footer(
      "Builds candidates as shared libraries, measures each in a worker process (a crash or hang costs only the\n"
      "worker), and records every measurement in the database.");
  add_workload_options(*cmd, o->workload);
  o->target_option = cmd->get_option("--target");
  add_measure_options(*cmd, o->measure, kTuning | kCold);
  cmd->add_option("--db", o->db,
                  "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME (a file is created when missing)")
      ->type_name("PATH|URL");
  o->threads_option =
      add_threads_option(*cmd, o->threads, "threads of the kernel under measurement (with --suite: the suite's)");
  cmd->add_option("--batch", o->batch, "candidates proposed at a time")->type_name("N")->check(CLI::Range(1, 4096));
  cmd->add_option("--compile-threads", o->compile_threads,
                  "candidates built in parallel while others are measured; they leave the timed kernel's cores "
                  "while it is timed (0: one per core)")
      ->type_name("N")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--confirm", o->confirm,
                  "measure the N fastest again at the end (a fresh worker) and rank on both; 0: off")
      ->type_name("N")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--suite", o->suite,
                  "tune every workload of a regression suite (docs/ci.md) instead of --op/--shape, for "
                  "its target and threads")
      ->type_name("FILE")
      ->excludes(o->workload.shape_option);
  cmd->add_flag("--no-seed-records", o->no_seed_records,
                "with an empty db, start xgb from nothing instead of the records shipped with tunefarm");
  cmd->add_flag("--no-timing-lock", o->no_timing_lock,
                "do not hold the host-wide timing lock (only when nothing else measures here)");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  commands.on(cmd, [o] { return tune_command(*o); });
}

}  // namespace tf::cli

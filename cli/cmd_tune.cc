// tunefarm tune: a local tuning job (tuner/tune_job.h), with a live progress line.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/workload_args.h"
#include "db/database.h"
#include "regress/suite.h"
#include "tuner/tune_job.h"

namespace tf::cli {

namespace {

Json result_json(const compiler::Task& task, const tuner::TuneOptions& opts, const tuner::TuneResult& r, const std::string& db) {
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

void print_result(const compiler::Task& task, const tuner::TuneOptions& opts, const tuner::TuneResult& r, const std::string& db) {
  std::printf("%s on %s: %lld trials (%lld ok, %lld failed) in %.1f s with the %s tuner\n", task.workload().str().c_str(),
              task.target().str().c_str(), static_cast<long long>(r.trials), static_cast<long long>(r.ok),
              static_cast<long long>(r.failed), r.seconds, opts.tuner.c_str());
  std::printf("best: %.1f GFLOPS  config %s\n", r.best_gflops, r.best ? r.best->config.dump().c_str() : "none");
  std::printf("per trial (median): build %.1f ms (overlapped), wall time beyond the kernel's timed runs %.1f ms; search %.1f ms\n",
              r.build_ms_median, r.overhead_ms_median, r.search_ms_per_trial);
  if (r.confirmed > 0) {
    std::printf("confirmed: the %lld fastest measured again in a fresh worker; best ranked on both measurements\n",
                static_cast<long long>(r.confirmed));
  }
  if (!r.transfer.empty()) std::printf("started from: %s\n", r.transfer.c_str());
  std::printf("timing isolation: %s\nrecorded in %s\n", r.timing_isolation.c_str(), db.c_str());
}

}  // namespace

int cmd_tune(const std::vector<std::string>& argv) {
  Args args("tunefarm tune", "Search the config space of a workload: build candidates as shared libraries, measure each in a\n"
                    "worker process (a crash or hang costs only the worker), record every measurement in the database.");
  add_workload_options(args);
  args.option("trials", "N", "candidates to measure", "200")
      .option("tuner", "NAME", "xgb | random | grid | ga", "xgb")
      .option("db", "PATH", "tuning database (created when missing)", "tunefarm.db")
      .option("threads", "N", "threads of the kernel under measurement", "1")
      .option("seed", "S", "seed of the tuner and of the random inputs", "1")
      .option("batch", "N", "candidates proposed at a time", "16")
      .option("compile-threads", "N", "candidates built in parallel while others are measured", "1")
      .option("min-ms", "MS", "each timing repeats the kernel until it lasts this long", "20")
      .option("repeat", "N", "timings per candidate", "3")
      .option("timeout", "S", "hard limit per candidate, seconds", "10")
      .option("confirm", "N", "measure the N fastest again at the end (a fresh worker) and rank on both; 0: off", "3")
      .option("suite", "FILE", "tune every workload of a regression suite (docs/ci.md) instead of --op/--shape")
      .flag("no-seed-records", "with an empty db, start xgb from nothing instead of the records shipped with tunefarm")
      .flag("no-timing-lock", "do not hold the host-wide timing lock (only when nothing else measures here)")
      .flag("json", "print the result as JSON");
  if (!args.parse(argv)) return 0;
  std::vector<std::unique_ptr<compiler::Task>> tasks;
  if (args.has("suite")) {
    if (args.has("shape")) throw UsageError("give --suite or --shape, not both");
    regress::Suite suite;
    try {
      suite = regress::load_suite(args.get("suite"));
    } catch (const regress::SuiteError& e) {
      throw UsageError(e.what());
    }
    const codegen::Target target = codegen::parse_target(args.get("target"));
    for (const auto& w : suite.workloads) tasks.push_back(std::make_unique<compiler::Task>(w.workload, target));
  } else {
    tasks.push_back(make_task(args));
  }
  tuner::TuneOptions opts;
  opts.tuner = args.get("tuner");
  opts.trials = args.get_int("trials");
  opts.threads = static_cast<int>(args.get_int("threads"));
  opts.device_key = tuner::local_device_key(opts.threads);
  opts.seed = static_cast<uint64_t>(args.get_int("seed"));
  opts.batch = static_cast<int>(args.get_int("batch"));
  opts.compile_threads = static_cast<int>(args.get_int("compile-threads"));
  opts.measure.min_repeat_ms = static_cast<double>(args.get_int("min-ms"));
  opts.measure.repeat = static_cast<int>(args.get_int("repeat"));
  opts.measure.timeout_s = static_cast<double>(args.get_int("timeout"));
  opts.seed_records = !args.flag_set("no-seed-records");
  opts.confirm_top = static_cast<int>(args.get_int("confirm"));
  if (opts.confirm_top < 0 || opts.confirm_top > 100) throw UsageError("--confirm must be between 0 and 100");
  if (args.flag_set("no-timing-lock")) opts.measure.timing_lock.clear();
  if (opts.trials <= 0 || opts.trials > 1000000) throw UsageError("--trials must be between 1 and 1000000");
  if (opts.threads < 1 || opts.threads > 1024) throw UsageError("--threads must be between 1 and 1024");
  if (opts.batch < 1 || opts.batch > 4096) throw UsageError("--batch must be between 1 and 4096");
  if (opts.compile_threads < 1 || opts.compile_threads > 64) throw UsageError("--compile-threads must be between 1 and 64");
  if (opts.measure.repeat < 1 || opts.measure.repeat > 1000) throw UsageError("--repeat must be between 1 and 1000");
  if (opts.measure.timeout_s < 1) throw UsageError("--timeout must be at least 1 second");
  db::Database database(args.get("db"));

  const bool json = args.flag_set("json");
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  auto progress = [&](const tuner::Progress& p) {
    if (json && !tty) return;
    std::fprintf(stderr, "%strial %lld/%lld  %-13s %8.1f GFLOPS  best %8.1f  %6.1f s  ETA %5.0f s%s",
                 tty ? "\r" : "", static_cast<long long>(p.trial), static_cast<long long>(p.trials), p.outcome.c_str(),
                 p.gflops, p.best_gflops, p.elapsed_s, p.eta_s, tty ? "" : "\n");
    std::fflush(stderr);
  };
  Json results = Json::array();
  bool all_ok = true;
  for (const auto& task : tasks) {
    tuner::TuneResult r = tuner::tune(*task, opts, &database, progress);
    if (tty && !json) std::fprintf(stderr, "\n");
    all_ok &= r.ok > 0;
    if (json) {
      results.push_back(result_json(*task, opts, r, args.get("db")));
    } else {
      print_result(*task, opts, r, args.get("db"));
    }
  }
  if (json) std::printf("%s\n", (tasks.size() == 1 ? results.front() : results).dump(2).c_str());
  return all_ok ? 0 : 1;
}

}  // namespace tf::cli

// tune_bench: how well the tuners search, on real kernels measured in a worker process.
//   1. search efficiency: trials each tuner needs to reach 90% of the best GFLOPS any run found,
//      xgb vs random, median over seeds (each run in a fresh database: no transfer)
//   2. tuned quality: the best config after N xgb trials against oneDNN measured in the same run
//   3. overhead per trial: build; the trial's wall time beyond the kernel's own timed runs; the
//      tuner's search
// Writes bench/results/NAME.json in the shape every benchmark follows.
#include <algorithm>
#include <filesystem>
#include <map>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "bench/bench_util.h"
#include "bench/peers.h"
#include "bench/search_runs.h"
#include "support/args.h"
#include "support/measure_args.h"
#include "compiler/compiler.h"
#include "db/database.h"
#include "support/json.h"
#include "support/stats.h"
#include "runtime/measure_worker.h"
#include "tuner/tune_job.h"

namespace {

using tf::Json;
using tf::parse_json;
using namespace tf::bench;
using tf::median;

struct Shape {
  int64_t M, N, K;
};

Shape find_workload(const Json& workloads, const std::string& name) {
  for (const auto& w : workloads.at("workloads")) {
    if (w.at("name").get<std::string>() == name) return {w.at("M").get<int64_t>(), w.at("N").get<int64_t>(), w.at("K").get<int64_t>()};
  }
  throw tf::UsageError("workload '" + name + "' is not in the workloads file");
}

// One tuning run in a database of its own: empty, or a copy of `start_db` (a farm's history).
tf::tuner::TuneResult run_job(const tf::compiler::Task& task, const std::string& tuner, int64_t trials, uint64_t seed,
                              int threads, double min_ms, const std::string& db_path, const std::string& start_db = "",
                              bool seed_records = true) {
  SearchRun run;
  run.tuner = tuner;
  run.trials = trials;
  run.seed = seed;
  run.threads = threads;
  run.min_repeat_ms = min_ms;
  run.db_path = db_path;
  run.start_db = start_db;
  run.seed_records = seed_records;
  return run_search(task, run);
}

// The GFLOPS of a config measured again on its own: in 3 fresh worker processes, median of 7
// timings of >= 20 ms each, then the median over the processes. A run's best is the maximum of
// many noisy measurements and so above the config's true speed, and a kernel's speed varies from
// process to process with the physical layout of its buffers (a config that reads B unpacked at a
// 12 KB stride was seen at 340-388 GFLOPS in four processes); a user's process is any of them.
double remeasure(const tf::compiler::Task& task, const Json& config, int threads) {
  auto lib = task.build_shared_library(task.space().from_json(config));
  std::vector<double> per_process;
  for (int process = 0; process < 3; ++process) {
    tf::runtime::MeasureWorker worker(tf::runtime::MeasureWorker::default_path(), {}, threads);
    worker.setup(tf::tuner::make_workload_setup(task, 1));
    tf::runtime::MeasureOptions o;
    o.repeat = 7;
    o.min_repeat_ms = 20;
    auto m = worker.measure(lib.bytes, lib.entry_symbol, o);
    if (m.status != tf::runtime::MeasureStatus::Ok || m.costs.empty()) return 0;
    per_process.push_back(static_cast<double>(task.op().flops(task.workload().shape)) / median(m.costs) * 1e-9);
  }
  return median(per_process);
}

int run(int argc, char** argv) {
  struct Options {
    std::string efficiency_workloads = "gemm-512,bert-ffn1", quality_workloads = "gemm-1024,bert-ffn1";
    int64_t seeds = 5;
    std::string tuners = "xgb,xgb-cold,random", history_workloads = "gemm-256,bert-qkv";
    int64_t history_trials = 150, quality_trials = 400;
    std::string threads = "1,2";
    std::string workloads_file = std::string(TF_SOURCE_DIR) + "/../shared/workloads/dense.json";
    std::string name = "tune";
    tf::MeasureArgs measure;
    bool no_save = false;
  } o;
  o.measure.min_ms = 10;
  auto app = tf::make_app("tune_bench", "Benchmark the tuners: search efficiency, tuned quality against oneDNN, overhead per trial.");
  app->add_option("--efficiency-workloads", o.efficiency_workloads, "workloads for search efficiency")->type_name("NAMES");
  app->add_option("--quality-workloads", o.quality_workloads, "workloads for tuned quality")->type_name("NAMES");
  app->add_option("--seeds", o.seeds, "seeds per tuner for search efficiency")->type_name("N")->check(CLI::Range(int64_t{1}, int64_t{1000}));
  app->add_option("--tuners", o.tuners,
                  "tuners compared for search efficiency: xgb (empty db: a fresh farm, starts from the shipped seed records), "
                  "xgb-cold (empty db, no seed records), xgb+history (a db with other workloads' xgb runs), random")
      ->type_name("NAMES");
  app->add_option("--history-workloads", o.history_workloads, "for xgb+history: workloads tuned first into the db it starts from")
      ->type_name("NAMES");
  app->add_option("--history-trials", o.history_trials, "xgb trials per history workload")->type_name("N")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  tf::add_measure_options(*app, o.measure, tf::kTrials | tf::kMinMs);
  app->add_option("--quality-trials", o.quality_trials, "xgb trials per tuned-quality run")->type_name("N")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  app->add_option("--threads", o.threads, "thread counts for tuned quality")->type_name("LIST");
  app->add_option("--workloads-file", o.workloads_file, "standard workloads")->type_name("PATH");
  app->add_option("--name", o.name, "results go to bench/results/NAME.json")->type_name("NAME");
  app->add_flag("--no-save", o.no_save, "print the tables only");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  const Json workloads = parse_json(read_file(o.workloads_file));
  const double min_ms = o.measure.min_ms;
  const tf::codegen::Target target = tf::codegen::host_target();
  const std::string scratch = "/tmp/tf-tune-bench-" + std::to_string(::getpid()) + ".db";
  Json rows = Json::array();
  std::vector<double> build_ms, overhead_ms, worker_ms, search_ms;

  std::printf("machine: %s, target %s, date %s\n\n", cpu_name().c_str(), target.str().c_str(), today().c_str());
  std::printf("## Search efficiency: trials to reach 90%% of the best GFLOPS any run found (median of %lld seeds)\n\n",
              static_cast<long long>(o.seeds));
  std::printf("The best is the highest best any run reported (each run confirms its winner in a fresh worker at the end);\n"
              "trials are counted on the runs' best-so-far curves, measured the same way.\n");
  std::printf("xgb starts from an empty database as a fresh farm does: from the tuning records shipped with tunefarm\n"
              "(tuner/seeds: gemm-256, bert-qkv, odd-1000x77x333; never a workload measured here). xgb-cold starts from\n"
              "nothing (8 warm-up trials spread over every knob's choices first). xgb+history, when asked for, from a db holding xgb runs of %s (%lld trials each).\n\n",
              o.history_workloads.c_str(), static_cast<long long>(o.history_trials));
  const std::vector<std::string> tuners = split(o.tuners);
  std::string history_db;
  if (std::find(tuners.begin(), tuners.end(), "xgb+history") != tuners.end()) {
    history_db = "/tmp/tf-tune-bench-" + std::to_string(::getpid()) + "-history.db";
    remove_db(history_db);
    for (const std::string& hname : split(o.history_workloads)) {
      Shape s = find_workload(workloads, hname);
      tf::compiler::Task task({"dense", {s.M, s.N, s.K}}, target);
      tf::db::Database db(history_db);
      tf::tuner::TuneOptions history;
      history.tuner = "xgb";
      history.trials = o.history_trials;
      history.measure.min_repeat_ms = min_ms;
      auto r = tf::tuner::tune(task, history, &db);
      std::fprintf(stderr, "  history: %s, %lld xgb trials, best %.1f GFLOPS\n", hname.c_str(), static_cast<long long>(r.trials),
                   r.best_gflops);
    }
  }
  std::printf("| workload | best GFLOPS |");
  for (const auto& t : tuners) std::printf(" %s trials |", t.c_str());
  std::vector<std::string> guided;  // every tuner but random, each compared with random
  for (const auto& t : tuners) {
    if (t != "random") guided.push_back(t);
  }
  for (const auto& t : guided) std::printf(" %s / random |", t.c_str());
  std::printf("\n|---|---|");
  for (size_t i = 0; i < tuners.size() + guided.size(); ++i) std::printf("---|");
  std::printf("\n");
  std::map<std::string, double> worst_ratio;  // by tuner, over workloads
  for (const std::string& wname : split(o.efficiency_workloads)) {
    Shape s = find_workload(workloads, wname);
    tf::compiler::Task task({"dense", {s.M, s.N, s.K}}, target);
    std::map<std::string, std::vector<std::vector<double>>> curves;
    std::vector<Json> run_bests;
    double best_found = 0;  // the best any run reported (each run's winner confirmed in a fresh worker)
    for (const std::string& tuner : tuners) {
      const bool from_history = tuner == "xgb+history", cold = tuner == "xgb-cold";
      for (int64_t seed = 1; seed <= o.seeds; ++seed) {
        auto r = run_job(task, from_history || cold ? "xgb" : tuner, o.measure.trials, static_cast<uint64_t>(seed), 1, min_ms,
                         scratch, from_history ? history_db : "", !cold);
        if (r.best) run_bests.push_back(r.best->config);
        best_found = std::max(best_found, r.best_gflops);
        curves[tuner].push_back(r.best_curve);
        // The overhead of the tuning path users run (xgb). Random's candidates are mostly slow
        // kernels whose warm-up run alone takes 10-50 ms: kernel time the protocol needs, not overhead.
        if (tuner != "random") {
          build_ms.push_back(r.build_ms_median);
          overhead_ms.push_back(r.overhead_ms_median);
          worker_ms.push_back(r.worker_overhead_ms_median);
          search_ms.push_back(r.search_ms_per_trial);
        }
        std::fprintf(stderr, "  %s %s seed %lld: best %.1f GFLOPS after %lld trials, %.0f s (search %.1f ms/trial, overhead %.1f ms/trial), 90%% of own best at trial %lld\n",
                     wname.c_str(), tuner.c_str(), static_cast<long long>(seed), r.best_gflops, static_cast<long long>(r.trials),
                     r.seconds, r.search_ms_per_trial, r.overhead_ms_median, static_cast<long long>(trials_to_reach(r.best_curve, 0.9 * r.best_gflops)));
      }
    }
    // The threshold: 90% of the best GFLOPS any run found, as the runs report it (their winners
    // confirmed in a fresh worker), so curve and threshold are measured alike. The same with the
    // runs' winners re-measured in 3 fresh processes is printed beside it: a lower level, which
    // many configs pass, so random reaches it sooner.
    const double best = best_found;
    double best_remeasured = 0;
    for (const Json& config : run_bests) best_remeasured = std::max(best_remeasured, remeasure(task, config, 1));
    std::map<std::string, double> need, need_remeasured;
    for (auto& [tuner, list] : curves) {
      std::vector<double> t, t2;
      std::string per_seed;
      for (const auto& c : list) {
        t.push_back(static_cast<double>(trials_to_reach(c, 0.9 * best)));
        t2.push_back(static_cast<double>(trials_to_reach(c, 0.9 * best_remeasured)));
        per_seed += (per_seed.empty() ? "" : ", ") + std::to_string(static_cast<int64_t>(t.back()));
      }
      need[tuner] = median(t);
      need_remeasured[tuner] = median(t2);
      std::printf("  %s %s: trials to %.1f GFLOPS per seed: %s\n", wname.c_str(), tuner.c_str(), 0.9 * best, per_seed.c_str());
    }
    for (const auto& [tuner, n] : need_remeasured) {
      std::printf("  %s %s: median trials to 90%% of the best re-measured in 3 fresh processes (%.1f GFLOPS): %.0f%s\n",
                  wname.c_str(), tuner.c_str(), 0.9 * best_remeasured, n,
                  tuner != "random" && need_remeasured.count("random")
                      ? (" (/ random " + std::to_string(n / std::max(1.0, need_remeasured["random"])).substr(0, 4) + ")").c_str()
                      : "");
    }
    auto ratio_of = [&](const std::string& t) {
      return need.count(t) && need.count("random") ? need[t] / std::max(1.0, need["random"]) : 0.0;
    };
    std::printf("| %s | %.1f |", wname.c_str(), best);
    for (const auto& t : tuners) std::printf(" %.0f |", need[t]);
    for (const auto& t : guided) {
      worst_ratio[t] = std::max(worst_ratio[t], ratio_of(t));
      std::printf(" %.2f |", ratio_of(t));
    }
    std::printf("\n");
    std::fflush(stdout);
    Json row = Json::object();
    row["what"] = "search_efficiency";
    row["workload"] = wname;
    row["best_gflops"] = best;
    row["best_gflops_remeasured_3_processes"] = best_remeasured;
    for (const auto& t : tuners) row[t + "_trials_to_90pct_of_remeasured"] = need_remeasured[t];
    for (const auto& t : tuners) row[t + "_trials_to_90pct"] = need[t];
    for (const auto& t : guided) row["ratio_" + t + "_random"] = ratio_of(t);
    rows.push_back(row);
  }

  std::printf("\n## Tuned quality: best after %lld xgb trials vs oneDNN (same run)\n\n",
              static_cast<long long>(o.quality_trials));
  std::printf("GFLOPS: the job's best config measured again (3 fresh worker processes, median of their medians of 7\n"
              "timings), the job's own measurement beside it.\n\n");
  std::printf("| workload | threads | GFLOPS | in job | oneDNN GFLOPS | ratio | config |\n|---|---|---|---|---|---|---|\n");
  double worst_quality = 1e9;
  for (const std::string& wname : split(o.quality_workloads)) {
    Shape s = find_workload(workloads, wname);
    tf::compiler::Task task({"dense", {s.M, s.N, s.K}}, target);
    const double flops = 2.0 * static_cast<double>(s.M) * static_cast<double>(s.N) * static_cast<double>(s.K);
    for (const std::string& ts : split(o.threads)) {
      const int threads = std::stoi(ts);
      auto r = run_job(task, "xgb", o.quality_trials, 1, threads, min_ms, scratch);
      build_ms.push_back(r.build_ms_median);
      overhead_ms.push_back(r.overhead_ms_median);
      worker_ms.push_back(r.worker_overhead_ms_median);
      search_ms.push_back(r.search_ms_per_trial);
      settle();
      const double tuned = r.best ? remeasure(task, r.best->config, threads) : 0;
      const double onednn = flops / median(time_onednn_matmul(s.M, s.N, s.K, threads, 200, 5)) * 1e-9;
      const double ratio = tuned / onednn;
      worst_quality = std::min(worst_quality, ratio);
      const std::string cfg = r.best ? r.best->config.dump() : "none";
      std::printf("| %s | %d | %.1f | %.1f | %.1f | %.2fx | `%s` |\n", wname.c_str(), threads, tuned, r.best_gflops, onednn, ratio,
                  cfg.c_str());
      std::fflush(stdout);
      Json row = Json::object();
      row["what"] = "tuned_quality";
      row["workload"] = wname;
      row["threads"] = threads;
      row["config"] = r.best ? r.best->config : Json();
      row["gflops"] = tuned;
      row["gflops_in_job"] = r.best_gflops;
      row["onednn_gflops"] = onednn;
      row["ratio_onednn"] = ratio;
      row["trials"] = r.trials;
      row["seconds"] = r.seconds;
      rows.push_back(row);
    }
  }
  remove_db(scratch);
  if (!history_db.empty()) remove_db(history_db);

  std::printf("\n## Overhead per trial (median over the xgb runs of each run's median)\n\n");
  std::printf("| part | ms per trial |\n|---|---|\n");
  std::printf("| build (lower + LLVM + lld, overlapped with measuring the previous candidate) | %.1f |\n", median(build_ms));
  std::printf("| trial wall time less the kernel's own timed runs (everything else) | %.1f |\n", median(overhead_ms));
  std::printf("| of which in the measure call and db write (load, warm-up, check, protocol) | %.1f |\n", median(worker_ms));
  std::printf("| xgb search (retraining + annealing), per trial | %.1f |\n\n", median(search_ms));
  Json overhead = Json::object();
  overhead["what"] = "overhead_per_trial_ms";
  overhead["build"] = median(build_ms);
  overhead["wall_beyond_timed_runs"] = median(overhead_ms);
  overhead["measure_call_and_db"] = median(worker_ms);
  overhead["xgb_search"] = median(search_ms);
  rows.push_back(overhead);
  Targets targets;
  auto add_target = [&](const std::string& what, double value, const std::string& goal, bool met) {
    targets.add(what, value, goal, met);
  };
  const std::map<std::string, std::string> starts = {{"xgb", "empty db: a fresh farm, from the shipped seed records"},
                                                     {"xgb-cold", "empty db, no seed records"},
                                                     {"xgb+history", "db with other workloads' history"}};
  for (const auto& [t, ratio] : worst_ratio) {
    const auto start = starts.find(t);
    add_target(t + " trials / random trials to 90% of best, " + (start != starts.end() ? start->second : t) + " (worst workload)",
               ratio, "<= 0.33", ratio <= 1.0 / 3);
  }
  add_target("tuned GFLOPS / oneDNN (worst workload and thread count)", worst_quality, ">= 0.8", worst_quality >= 0.8);
  add_target("median ms per trial of wall time beyond the kernel's timed runs", median(overhead_ms), "< 30", median(overhead_ms) < 30);

  if (!o.no_save) {
    write_results(o.name, target.str(), rows, targets);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("tune_bench", run, argc, argv, 3); }

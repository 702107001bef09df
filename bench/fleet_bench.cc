// The fleet benchmark.
//   1. Overhead: the same gemm-512 tuning run (random tuner, same seed, so the same candidates)
//      measured locally by `tunefarm tune`'s loop and through a tracker with one local board. Per-
//      trial wall time is the median gap between consecutive measurements in the db.
//   2. Capacity apart from compiling: a load-test board process (synthetic timings, no code runs)
//      opens 8, 32 and 128 board connections; the tracker's build cache is warm, so what is
//      measured is dispatching, recording and the tuning loop. Dispatches per second and the
//      scheduling latency a board sees (its result sent -> its next item received).
//   3. Builders (bench/fleet_builders.h): trials per second and the tracker's CPU per trial with 0, 1
//      and 2 real builders; a tracker with many synthetic boards and synthetic builders.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "bench/bench_util.h"
#include "bench/fleet_builders.h"
#include "bench/fleet_tracker.h"
#include "compiler/compiler.h"
#include "db/database.h"
#include "proto/channel.h"
#include "proto/tunefarm.grpc.pb.h"
#include "support/args.h"
#include "support/measure_args.h"
#include "support/stats.h"
#include "support/subprocess.h"
#include "tuner/tune_job.h"

namespace {

namespace v1 = ::tunefarm::v1;
using tf::Json;
using tf::parse_json;
using namespace tf::bench;
using tf::median;
using Clock = std::chrono::steady_clock;

// Median gap between consecutive measurements of a job: the wall time of a trial in steady state.
double per_trial_ms(const std::string& db_path, int64_t job_id) {
  tf::db::Database db(db_path);
  auto ms = db.job_measurements(job_id);
  std::vector<double> gaps;
  for (size_t i = 1; i < ms.size(); ++i) gaps.push_back(static_cast<double>(ms[i].created_ms - ms[i - 1].created_ms));
  return median(gaps);
}

int run(int argc, char** argv) {
  tf::MeasureArgs measure;
  measure.trials = 64;
  std::string boards_list = "8,32,128", name = "fleet";
  int64_t capacity_trials = 2000;
  bool no_save = false;
  auto app = tf::make_app("fleet_bench",
                          "Benchmark the fleet: overhead per trial against local tuning, and the tracker's capacity.");
  tf::add_measure_options(*app, measure, tf::kTrials);
  app->get_option("--trials")->description("trials of the gemm-512 overhead run");
  app->add_option("--boards", boards_list, "board connections for the capacity runs")->type_name("LIST");
  app->add_option("--capacity-trials", capacity_trials, "trials per capacity run (dense 64x64x64, warm build cache)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  BuildersBenchOptions builders;
  app->add_option("--builder-trials", builders.real_trials, "trials per run with 0, 1 and 2 real builders")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app->add_option("--synthetic-trials", builders.synthetic_trials,
                  "trials of the run with synthetic boards and builders")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  app->add_option("--synthetic-boards", builders.synthetic_boards, "load-test boards beside the synthetic builders")
      ->type_name("N")
      ->check(CLI::Range(1, 4096));
  app->add_option("--synthetic-builders", builders.synthetic_builders, "load-test builders")
      ->type_name("N")
      ->check(CLI::Range(1, 4096));
  app->add_option("--name", name, "results go to bench/results/NAME.json")->type_name("NAME");
  app->add_flag("--no-save", no_save, "print the tables only");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;
  const int64_t trials = measure.trials;
  const std::string dir = "/tmp/tf-fleet-bench-" + std::to_string(::getpid());
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  Json rows = Json::array();
  Targets targets;
  std::printf("machine: %s, %u cores, date %s\n\n", cpu_name().c_str(), std::thread::hardware_concurrency(),
              today().c_str());

  // 1. Overhead.
  std::printf("## Overhead per trial: gemm-512, %lld random trials (seed 1), 1 thread, min 20 ms per timing\n\n",
              static_cast<long long>(trials));
  double local_ms = 0, fleet_ms = 0;
  {
    const std::string db = dir + "/local.db";
    tf::compiler::Task task({"dense", {512, 512, 512}}, tf::codegen::host_target());
    tf::tuner::TuneOptions opts;
    opts.tuner = "random";
    opts.trials = trials;
    opts.seed = 1;
    opts.worker_path = TF_MEASURE_WORKER;
    tf::db::Database database(db);
    auto r = tf::tuner::tune(task, opts, &database);
    local_ms = per_trial_ms(db, r.job_id);
    std::printf("local (tunefarm tune):            %.1f ms per trial (%.1f s in all)\n", local_ms, r.seconds);
    std::fflush(stdout);
  }
  {
    const std::string db = dir + "/fleet.db";
    BenchTracker tracker(dir, db, 1);
    tf::Subprocess board(
        {TF_RPC_SERVER, "--tracker", tracker.address(), "--key", "bench", "--cpus", "0", "--threads", "1"},
        dir + "/board.log");
    if (!wait_until([&] { return tracker.devices("bench") == 1; }, 30))
      throw std::runtime_error("the board did not register");
    const auto t0 = Clock::now();
    v1::Job job = tracker.run(dense_spec("bench", {512, 512, 512}, trials, 16, 20));
    fleet_ms = per_trial_ms(db, job.id());
    std::printf("fleet (tracker + 1 local board):  %.1f ms per trial (%.1f s in all)\n\n", fleet_ms,
                std::chrono::duration<double>(Clock::now() - t0).count());
  }
  Json overhead = Json::object();
  overhead["what"] = "overhead_per_trial";
  overhead["local_ms"] = local_ms;
  overhead["fleet_ms"] = fleet_ms;
  overhead["difference_ms"] = fleet_ms - local_ms;
  rows.push_back(overhead);

  // 2. Capacity.
  std::printf(
      "## Tracker capacity: synthetic boards (no code runs), dense 64x64x64 candidates from a warm build cache\n\n");
  const std::string db = dir + "/capacity.db";
  BenchTracker tracker(dir, db, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  auto load_test = [&](int boards) {
    return std::make_unique<tf::Subprocess>(
        std::vector<std::string>{TF_RPC_SERVER, "--tracker", tracker.address(), "--key", "load", "--load-test-boards",
                                 std::to_string(boards)},
        dir + "/load-" + std::to_string(boards) + ".log");
  };
  {
    // Warm the build cache with the very candidates the runs will dispatch (same tuner and seed).
    auto warm = load_test(8);
    if (!wait_until([&] { return tracker.devices("load") == 8; }, 60))
      throw std::runtime_error("load-test boards did not register");
    const auto t0 = Clock::now();
    tracker.run(dense_spec("load", {64, 64, 64}, capacity_trials, 256, 1));
    std::printf("build cache warmed: %lld candidates built in %.1f s\n\n", static_cast<long long>(capacity_trials),
                std::chrono::duration<double>(Clock::now() - t0).count());
    warm->kill(SIGTERM);
    warm->wait_exit(std::chrono::seconds(30));
    wait_until([&] { return tracker.devices("load") == 0; }, 30);
  }
  std::printf(
      "| boards | dispatches | seconds | dispatches/s | latency p50 ms | latency p99 ms |\n|---|---|---|---|---|---|\n");
  double at_largest = 0;
  for (const std::string& b : split(boards_list)) {
    const int boards = std::stoi(b);
    auto lt = load_test(boards);
    if (!wait_until([&] { return tracker.devices("load") == boards; }, 60))
      throw std::runtime_error("load-test boards did not register");
    tracker.run(dense_spec("load", {64, 64, 64}, capacity_trials, std::max(256, 4 * boards), 1));
    lt->kill(SIGTERM);
    lt->wait_exit(std::chrono::seconds(30));
    wait_until([&] { return tracker.devices("load") == 0; }, 30);
    const std::string out = lt->output();
    const auto brace = out.rfind('{');
    if (brace == std::string::npos) throw std::runtime_error("the load test printed no summary:\n" + out);
    Json summary = parse_json(out.substr(brace));
    const double rate = summary.at("items_per_s").get<double>();
    std::printf("| %d | %lld | %.2f | %.0f | %.3f | %.3f |\n", boards,
                static_cast<long long>(summary.at("items").get<int64_t>()), summary.at("seconds").get<double>(), rate,
                summary.at("latency_ms_p50").get<double>(), summary.at("latency_ms_p99").get<double>());
    std::fflush(stdout);
    summary["what"] = "capacity";
    rows.push_back(summary);
    at_largest = rate;
  }
  std::printf("\n");
  builders.dir = dir;
  bench_builders(builders, &rows, &targets);
  targets.add("fleet per-trial wall ms - local per-trial wall ms (gemm-512, median)", fleet_ms - local_ms, "<= 10",
              fleet_ms - local_ms <= 10);
  targets.add("dispatches per second at the largest board count", at_largest, ">= 1000", at_largest >= 1000);
  if (!no_save) {
    write_results(name, "", rows, targets);
  }
  std::system(("rm -rf " + dir).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("fleet_bench", run, argc, argv, 2); }

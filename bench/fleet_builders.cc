#include "bench/fleet_builders.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "bench/fleet_tracker.h"
#include "support/json.h"

namespace tf::bench {

namespace {

using Clock = std::chrono::steady_clock;

// The one-line JSON summary a load-test process prints when it stops.
Json summary_of(Subprocess& p) {
  p.kill(SIGTERM);
  p.wait_exit(std::chrono::seconds(60));
  const std::string out = p.output();
  const auto brace = out.rfind('{');
  if (brace == std::string::npos) throw std::runtime_error("the load test printed no summary:\n" + out);
  return parse_json(out.substr(brace));
}

std::unique_ptr<Subprocess> load_test_boards(const std::string& dir, const BenchTracker& t, int boards) {
  return std::make_unique<Subprocess>(std::vector<std::string>{TF_RPC_SERVER, "--tracker", t.address(), "--key", "load",
                                                               "--load-test-boards", std::to_string(boards)},
                                      dir + "/load-boards-" + std::to_string(boards) + ".log");
}

struct Run {
  int64_t trials = 0;
  double seconds = 0, tracker_cpu_ms_per_trial = 0;
};

// One job on `tracker` (boards of key "load" already registered), timed from submit to done.
Run run_job(BenchTracker& tracker, const v1::JobSpec& spec) {
  const double cpu0 = tracker.cpu_seconds();
  const auto t0 = Clock::now();
  const v1::Job job = tracker.run(spec);
  Run r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.trials = job.workloads(0).trials_done();
  r.tracker_cpu_ms_per_trial =
      1e3 * (tracker.cpu_seconds() - cpu0) / static_cast<double>(std::max<int64_t>(1, r.trials));
  return r;
}

}  // namespace

void bench_builders(const BuildersBenchOptions& o, Json* rows, Targets* targets) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // 1. Real builders (tunefarm-builder, one build at a time each) beside 8 synthetic boards, so that
  //    building is what limits the rate; each run tunes a shape of its own, so no build is cached.
  std::printf(
      "## Builds through one tracker: real builders, %lld dense trials each run (cold build cache), 8 synthetic "
      "boards\n\n| builders | trials | seconds | trials/s | tracker CPU ms per trial |\n|---|---|---|---|---|\n",
      static_cast<long long>(o.real_trials));
  double cpu_with_builders = 0;
  for (int builders : {0, 1, 2}) {
    const std::string dir = o.dir + "/builders-" + std::to_string(builders);
    std::system(("mkdir -p " + dir).c_str());
    BenchTracker tracker(dir, dir + "/t.db", cores);
    auto boards = load_test_boards(dir, tracker, 8);
    std::vector<std::unique_ptr<Subprocess>> running;
    for (int b = 0; b < builders; ++b) {
      running.push_back(std::make_unique<Subprocess>(
          std::vector<std::string>{TF_BUILDER, "--tracker", tracker.address(), "--jobs", "1", "--build-lock", "none"},
          dir + "/builder-" + std::to_string(b) + ".log"));
    }
    const bool ready = wait_until(
        [&] {
          for (auto& b : running)
            if (b->output().find("registered as") == std::string::npos) return false;
          return tracker.devices("load") == 8;
        },
        60);
    if (!ready) throw std::runtime_error("builders or load-test boards did not register");
    const Run r = run_job(tracker, dense_spec("load", {64, 64, 64 + 16 * builders}, o.real_trials, 64, 1));
    std::printf("| %d | %lld | %.2f | %.1f | %.2f |\n", builders, static_cast<long long>(r.trials), r.seconds,
                static_cast<double>(r.trials) / r.seconds, r.tracker_cpu_ms_per_trial);
    std::fflush(stdout);
    rows->push_back({{"what", "real_builders"},
                     {"builders", builders},
                     {"trials", r.trials},
                     {"seconds", r.seconds},
                     {"trials_per_s", static_cast<double>(r.trials) / r.seconds},
                     {"tracker_cpu_ms_per_trial", r.tracker_cpu_ms_per_trial}});
    if (builders > 0) cpu_with_builders = std::max(cpu_with_builders, r.tracker_cpu_ms_per_trial);
    summary_of(*boards);
  }
  targets->add("tracker CPU ms per dispatched trial with builders connected (max over 1, 2 builders)",
               cpu_with_builders, "<= 2", cpu_with_builders <= 2);

  // 2. Synthetic builders and boards: what one tracker dispatches and records when neither
  //    compiling nor measuring costs anything.
  std::printf("\n## One tracker, %d synthetic boards and %d synthetic builders, %lld trials (cold build cache)\n\n",
              o.synthetic_boards, o.synthetic_builders, static_cast<long long>(o.synthetic_trials));
  const std::string dir = o.dir + "/synthetic";
  std::system(("mkdir -p " + dir).c_str());
  BenchTracker tracker(dir, dir + "/t.db", cores);
  auto boards = load_test_boards(dir, tracker, o.synthetic_boards);
  Subprocess builders(
      {TF_BUILDER, "--tracker", tracker.address(), "--load-test-builders", std::to_string(o.synthetic_builders)},
      dir + "/load-builders.log");
  if (!wait_until([&] { return tracker.devices("load") == o.synthetic_boards; }, 120))
    throw std::runtime_error("load-test boards did not register");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the builders' registrations
  const Run r = run_job(tracker, dense_spec("load", {128, 128, 128}, o.synthetic_trials,
                                            static_cast<int>(std::min<int64_t>(o.synthetic_trials, 4096)), 1));
  Json built = summary_of(builders);
  Json measured = summary_of(*boards);
  const double rate = measured.at("items_per_s").get<double>();
  std::printf(
      "| trials | job seconds | trials/s (boards' first to last result) | builds answered | tracker CPU ms per trial "
      "|\n|---|---|---|---|---|\n| %lld | %.2f | %.0f | %lld | %.2f |\n\n",
      static_cast<long long>(r.trials), r.seconds, rate, static_cast<long long>(built.at("builds").get<int64_t>()),
      r.tracker_cpu_ms_per_trial);
  rows->push_back({{"what", "synthetic_builders"},
                   {"boards", o.synthetic_boards},
                   {"builders", o.synthetic_builders},
                   {"trials", r.trials},
                   {"job_seconds", r.seconds},
                   {"trials_per_s", rate},
                   {"builds_answered", built.at("builds")},
                   {"tracker_cpu_ms_per_trial", r.tracker_cpu_ms_per_trial}});
  targets->add("trials per second, " + std::to_string(o.synthetic_boards) + " synthetic boards and " +
                   std::to_string(o.synthetic_builders) + " synthetic builders",
               rate, ">= 2000", rate >= 2000);
}

}  // namespace tf::bench

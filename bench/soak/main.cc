// The soak: a tracker with real and synthetic boards runs for a set time while boards are killed and
// restarted, the tracker is killed -9 and restarted on its db, and clients submit and cancel jobs
// and send malformed requests; then a drain with no faults, and the invariants (invariants.h).
//   build/bench/soak [--duration 10m] [--seed N] [--json] [--out bench/results/soak.json]
// Exit 0 when every invariant holds, 1 naming the broken ones, 2 when the soak could not run.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench/bench_util.h"
#include "bench/soak/clients.h"
#include "bench/soak/faults.h"
#include "bench/soak/invariants.h"
#include "bench/soak/processes.h"
#include "bench/soak/report.h"
#include "support/args.h"

namespace tf::soak {

namespace {

constexpr double kSampleEvery_s = 3;
constexpr double kBoardRestart_s = 2;

// "10m", "90s", "1h", "45" (seconds).
double parse_duration(const std::string& option, const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (used == 0 || scale < 0 || value <= 0)
    throw UsageError(option + ": '" + text + "' is not a duration (e.g. 90s, 2m, 10m)");
  return value * scale;
}

class Soak {
 public:
  Soak(const FleetOptions& fleet, std::FILE* say)
      : fleet_(fleet), client_(fleet_, tally_), say_(say), start_(Clock::now()) {}

  double now() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void start() {
    fleet_.start_tracker(now());
    fleet_.start_boards(now());
    std::fprintf(
        say_, "soak: tracker on %s (dashboard %d), %d real boards (key %s), %d synthetic (key %s); scratch %s\n",
        fleet_.address().c_str(), fleet_.http_port(), fleet_.options().real_boards, fleet_.options().real_key.c_str(),
        fleet_.options().synthetic_boards, fleet_.options().synthetic_key.c_str(), fleet_.options().dir.c_str());
  }

  void run_faults(const std::vector<Event>& schedule, double duration_s) {
    size_t next = 0;
    while (now() < duration_s) {
      while (next < schedule.size() && schedule[next].at_s <= now()) apply(schedule[next++]);
      tick(10);
    }
  }

  // No faults: jobs finish; those still going at half the drain are cancelled.
  void drain(double drain_s) {
    const double until = now() + drain_s, cancel_at = now() + drain_s / 2;
    bool cancelled = false;
    std::fprintf(say_, "soak: draining (up to %.0f s; what still runs at %.0f s is cancelled)\n", drain_s, drain_s / 2);
    while (now() < until) {
      tick(5);
      if (client_.active_jobs() == 0) break;
      if (!cancelled && now() >= cancel_at) {
        client_.cancel_all_active();
        cancelled = true;
      }
    }
    client_.refresh(true);
    print_progress(say_, now(), tally_, client_.jobs_by_state(), client_.trials_reported());
  }

  Findings finish() {
    fleet_.stop(now(), &tally_.process_faults);
    Findings f;
    check_jobs_and_trials(fleet_.db_path(), client_.jobs(), &f);
    check_requests(tally_, &f);
    check_resources(fleet_.members(), &f);
    return f;
  }

  const Tally& tally() const { return tally_; }
  std::vector<Member*> members() { return fleet_.members(); }

 private:
  // Reaps and restarts processes, samples them, follows the jobs, says how it goes.
  void tick(double progress_every_s) {
    fleet_.poll(now(), kBoardRestart_s, &tally_.process_faults);
    if (now() - last_sample_ >= kSampleEvery_s) {
      fleet_.sample(now());
      last_sample_ = now();
    }
    if (now() - last_progress_ >= progress_every_s) {
      client_.refresh(false);
      print_progress(say_, now(), tally_, client_.jobs_by_state(), client_.trials_reported());
      last_progress_ = now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }

  void apply(const Event& e) {
    auto& boards = fleet_.real_boards();
    switch (e.action) {
      case Action::SubmitJob: return client_.submit(e.pick);
      case Action::CancelJob:
        return e.pick % 3 == 0 ? client_.submit_and_cancel(e.pick >> 2) : client_.cancel(e.pick >> 2);
      case Action::Malformed: return client_.malformed(e.pick);
      case Action::GarbageGrpc: return client_.garbage_grpc(e.pick);
      case Action::GarbageHttp: return client_.garbage_http(e.pick);
      case Action::BoardKill9:
      case Action::BoardTerm: {
        if (boards.empty()) return;
        Member& b = *boards[e.pick % boards.size()];
        if (!b.up()) return skipped(e);
        if (e.action == Action::BoardKill9)
          b.kill9(now());
        else
          b.terminate();
        break;
      }
      case Action::SyntheticKill9:
        if (!fleet_.synthetic().up()) return skipped(e);
        fleet_.synthetic().kill9(now());
        break;
      case Action::TrackerKill9:
        fleet_.kill9_tracker(now());
        fleet_.start_tracker(now());
        break;
    }
    ++tally_.faults[action_name(e.action)];
  }
  void skipped(const Event& e) { ++tally_.faults[std::string(action_name(e.action)) + " skipped (already down)"]; }

  Tally tally_;
  SoakFleet fleet_;
  SoakClient client_;
  std::FILE* say_;
  Clock::time_point start_;
  double last_sample_ = -kSampleEvery_s, last_progress_ = 0;
};

int run(int argc, char** argv) {
  std::string duration_text = "10m", drain_text = "auto", out = std::string(TF_SOURCE_DIR) + "/bench/results/soak.json";
  uint64_t seed = 1;
  bool json = false, keep = false;
  FleetOptions fleet;
  auto app =
      make_app("soak",
               "Soak the fleet: faults for a set time, a drain, then the invariants (every job ends, every trial "
               "recorded once, the tracker answers, nothing crashes, memory and open files stay flat).");
  app->add_option("--duration", duration_text, "how long faults go on, e.g. 90s, 2m, 10m")->type_name("TIME");
  app->add_option("--drain", drain_text,
                  "longest wait for the jobs to end afterwards (auto: a quarter of --duration, 30 s to 2 m)")
      ->type_name("TIME");
  app->add_option("--seed", seed, "draws the fault schedule")->type_name("N");
  app->add_option("--real-boards", fleet.real_boards, "boards that time real kernels")
      ->type_name("N")
      ->check(CLI::Range(1, 16));
  app->add_option("--synthetic-boards", fleet.synthetic_boards, "synthetic boards (one --load-test-boards process)")
      ->type_name("N")
      ->check(CLI::Range(1, 256));
  app->add_option("--out", out, "the results file (default bench/results/soak.json)")->type_name("FILE");
  app->add_flag("--json", json, "print the results JSON on stdout (the table and progress go to stderr)");
  app->add_flag("--keep", keep, "keep the scratch folder (db, logs) even when every invariant holds");
  if (auto code = parse_args(*app, argc, argv)) return *code;
  const double duration_s = parse_duration("--duration", duration_text);
  const double drain_s =
      drain_text == "auto" ? std::clamp(duration_s / 4, 30.0, 120.0) : parse_duration("--drain", drain_text);
  std::FILE* say = json ? stderr : stdout;

  fleet.dir = "/tmp/tf-soak-" + std::to_string(::getpid());
  std::filesystem::remove_all(fleet.dir);
  std::filesystem::create_directories(fleet.dir);
  RunInfo info{duration_s, drain_s, 0, seed, fleet.real_boards, fleet.synthetic_boards};
  Soak soak(fleet, say);
  soak.start();
  soak.run_faults(make_schedule(duration_s, seed), duration_s);
  soak.drain(drain_s);
  const Findings findings = soak.finish();
  info.elapsed_s = soak.now();

  const Json doc = soak_document(info, soak.tally(), findings, soak.members());
  print_table(say, doc);
  if (const auto parent = std::filesystem::path(out).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  std::ofstream(out) << doc.dump(2) << "\n";
  std::fprintf(say, "\nwrote %s\n", out.c_str());
  if (json) std::printf("%s\n", doc.dump(2).c_str());
  if (findings.all_held()) {
    if (!keep) std::filesystem::remove_all(fleet.dir);
    return 0;
  }
  std::string broken;
  for (const Verdict& v : findings.verdicts) {
    if (!v.held) broken += (broken.empty() ? "" : ", ") + v.name;
  }
  std::fprintf(stderr, "soak: invariant broken: %s (logs and db in %s)\n", broken.c_str(), fleet.dir.c_str());
  return 1;
}

}  // namespace

}  // namespace tf::soak

int main(int argc, char** argv) { return tf::bench::bench_main("soak", tf::soak::run, argc, argv, 2); }

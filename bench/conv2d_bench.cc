// The conv2d benchmark: the standard conv2d workloads (../shared/workloads/conv2d.json) run by our
// plain NCHW and blocked NCHWc operators, each with its default config and with the best config
// after N xgb trials, against oneDNN measured in the same run at each thread count. Prints a
// markdown table (on stderr with --json, whose stdout is the results document) and writes
// bench/results/NAME.json in the shape every tunefarm benchmark follows.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "bench/bench_util.h"
#include "bench/conv2d_targets.h"
#include "bench/conv2d_workloads.h"
#include "bench/peers.h"
#include "bench/winograd_accuracy.h"
#include "compiler/compiler.h"
#include "compiler/error.h"
#include "compiler/kernel_runner.h"
#include "db/database.h"
#include "runtime/host_lock.h"
#include "runtime/measure.h"
#include "runtime/thread_pool.h"
#include "support/args.h"
#include "support/measure_args.h"
#include "support/stats.h"
#include "tuner/tune_job.h"

namespace {

using tf::Json;
using namespace tf::bench;

struct Options {
  std::string workloads;           // comma-separated; empty (and no positional names): every workload of the file
  std::vector<std::string> names;  // positional
  std::string workloads_file = default_conv2d_workloads_path(TF_SOURCE_DIR);
  std::string threads = "1,2";
  std::string variants = "plain,blocked";
  int64_t trials = 400;
  std::string db = std::string(TF_BINARY_DIR) + "/conv2d-tuning.db";
  std::string tuned_db;
  double tune_min_ms = 10;
  int64_t compile_samples = 8;
  std::string name = "conv2d", target = "native";
  tf::MeasureArgs measure;
  bool onednn_only = false, json = false, no_save = false;
};

// TUNEFARM_CONV2D_TRIALS, when set, replaces the default of 400 (--trials still wins).
int64_t default_trials() {
  const char* env = std::getenv("TUNEFARM_CONV2D_TRIALS");
  if (!env || !*env) return 400;
  char* end = nullptr;
  const long long n = std::strtoll(env, &end, 10);
  if (*end != '\0' || n < 1 || n > 1000000) {
    throw tf::UsageError(std::string("TUNEFARM_CONV2D_TRIALS=") + env +
                         ": expected a number of trials from 1 to 1000000");
  }
  return n;
}

std::string thread_word(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

// In-process timings (ours and oneDNN's) hold the host-wide timing lock a tuning worker holds, so
// no board, tuning job or other benchmark on this host times at the same moment. Never held while
// this benchmark tunes: the tuning worker is another process and takes it itself.
std::unique_ptr<tf::runtime::HostLock> hold_timing_lock() {
  auto lock = std::make_unique<tf::runtime::HostLock>(tf::runtime::MeasureOptions{}.timing_lock);
  if (!lock->held()) {
    static bool said = false;
    if (!said) std::fprintf(stderr, "  timing without the host-wide timing lock: %s\n", lock->error().c_str());
    said = true;
  }
  return lock;
}

// How libgomp's idle threads wait (oneDNN's threads): on a busy host the default spinning costs
// oneDNN much of its multi-threaded speed, OMP_WAIT_POLICY=passive gives it back; recorded beside
// its numbers.
std::string omp_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  std::string out = policy && *policy ? policy : "default";
  if (spin && *spin) out += ", GOMP_SPINCOUNT=" + std::string(spin);
  return out;
}

// Other processes on the cores change every number here, oneDNN's multi-threaded ones most.
void warn_when_busy() {
  double load[1] = {0};
  const unsigned cores = std::thread::hardware_concurrency();
  if (::getloadavg(load, 1) == 1 && cores > 0 && load[0] > cores) {
    std::fprintf(stderr,
                 "warning: load average %.1f on %u cores: the timings will be noisy, oneDNN's at 2 threads most\n",
                 load[0], cores);
  }
}

struct Measured {
  double gflops = 0;
  bool pass = false;
  std::string error;  // why it did not run or check
};

// Built by the JIT and timed in this process by KernelRunner::time: the protocol time_calls gives
// oneDNN (grow the call count until a timing lasts min_ms, then `repeat` timings, median). GFLOPS
// from the workload's FLOPs (the file's formula), the numerator oneDNN's GFLOPS have too.
Measured measure_config(const tf::compiler::Task& task, const tf::space::Config& cfg, double flops, int threads,
                        const tf::MeasureArgs& m) {
  tf::runtime::set_num_threads(threads);
  Measured out;
  std::unique_ptr<tf::codegen::JitKernel> kernel;
  try {
    kernel = task.build_jit(cfg);
  } catch (const std::exception& e) {
    out.error = std::string("build: ") + e.what();
    return out;
  }
  tf::compiler::KernelRunner runner(task.op(), task.workload().shape, 1, task.argument_types());
  if (const int32_t status = runner.run(kernel->entry()); status != TF_OK) {
    out.error = std::string("the kernel returned ") + tf_kernel_status_str(status);
    return out;
  }
  if (const auto check = runner.check(); !check.pass) {
    out.error = std::to_string(check.mismatches) + " elements differ from the reference (max abs error " +
                std::to_string(check.max_abs_error) + ")";
    return out;
  }
  out.pass = true;
  const auto lock = hold_timing_lock();
  out.gflops = flops / tf::median(runner.time(kernel->entry(), m.min_ms, m.repeat)) * 1e-9;
  return out;
}

// The best config of a variant at a thread count: tuned now, or read from a tuning db.
struct Tuned {
  std::optional<Json> config;
  double gflops_in_job = 0;  // as the tuning job (or the db) measured it, in a worker process
  int64_t trials = 0;
  double seconds = 0, trials_per_min = 0, build_ms_median = 0;
  std::string from;  // "this run" or the db's path
};

class Conv2dBench {
 public:
  Conv2dBench(const Options& o, const std::vector<Conv2dWorkload>& file)
      : o_(o), target_(tf::codegen::parse_target(o.target)) {
    table_ = o.json ? stderr : stdout;
    for (const auto& t : split(o.threads)) threads_.push_back(parse_threads(t));
    for (const auto& v : split(o.variants)) {
      std::vector<std::string> winograd;
      for (int64_t m : kWinogradTiles) winograd.push_back(winograd_variant(m));
      if (v == "winograd") {
        variants_.insert(variants_.end(), winograd.begin(), winograd.end());
      } else if (v == "plain" || v == "blocked" || std::find(winograd.begin(), winograd.end(), v) != winograd.end()) {
        variants_.push_back(v);
      } else {
        throw tf::UsageError("--variants: '" + v +
                             "' is none of plain, blocked, winograd, winograd-m2, winograd-m4, winograd-m6");
      }
    }
    // Read-only: a db of configs tuned before is only read (db::DbError says why it cannot be).
    if (!o.tuned_db.empty())
      tuned_db_ = std::make_unique<tf::db::Database>(o.tuned_db, tf::db::Database::Open::ReadOnly);
    else if (!o.onednn_only)
      tuning_db_ = std::make_unique<tf::db::Database>(o.db);
    targets_in_.threads = threads_;
    targets_in_.layer_sets = layer_sets(file);
  }

  void print_header() const {
    std::fprintf(table_, "machine: %s, target %s, date %s\n\n", cpu_name().c_str(), target_.str().c_str(),
                 today().c_str());
    std::fprintf(
        table_,
        "| workload | threads | variant | config | GFLOPS | check | vs oneDNN | oneDNN GFLOPS | oneDNN impl | compile ms |\n");
    std::fprintf(table_, "|---|---|---|---|---|---|---|---|---|---|\n");
    std::fflush(table_);
  }

  void run_workload(const Conv2dWorkload& w, size_t index, size_t count) {
    std::fprintf(stderr, "[%zu/%zu] %s (%s)\n", index + 1, count, w.name.c_str(), w.variants.front().shape.c_str());
    std::vector<std::pair<Conv2dVariant, std::unique_ptr<tf::compiler::Task>>> tasks;
    if (!o_.onednn_only) {
      for (const auto& v : w.variants) {
        if (std::find(variants_.begin(), variants_.end(), v.variant) == variants_.end()) continue;
        if (auto task = make_task(w, v)) tasks.emplace_back(v, std::move(task));
      }
    }
    for (int threads : threads_) {
      std::map<std::string, Tuned> tuned;  // by variant
      for (const auto& [v, task] : tasks) tuned[v.variant] = tuned_config(w, v, *task, threads);
      const auto [onednn_gflops, onednn_impl] = measure_onednn(w, threads, false);
      // oneDNN's own Winograd beside ours, when it has one for this CPU and shape (reported, not a target).
      if (std::any_of(tasks.begin(), tasks.end(),
                      [](const auto& t) { return t.first.op == "conv2d_winograd_nchwc"; })) {
        measure_onednn(w, threads, true);
      }
      Conv2dComparison best{w.name, "", threads, 0, onednn_gflops};
      for (const auto& [v, task] : tasks) {
        settle();
        measure_and_add_row(w, v, *task, threads, "default", task->space().default_config(), nullptr, onednn_gflops,
                            onednn_impl);
        const Tuned& t = tuned[v.variant];
        if (!t.config) continue;
        tf::space::Config cfg;
        try {
          cfg = task->space().from_json(*t.config);
        } catch (const tf::CompileError& e) {
          add_skipped(w, v, threads, "the tuned config from " + t.from + " is not in today's space: " + e.what());
          continue;
        }
        settle();
        const Measured m = measure_and_add_row(w, v, *task, threads, "tuned", cfg, &t, onednn_gflops, onednn_impl);
        if (m.pass && m.gflops > best.tuned_gflops) best.tuned_gflops = m.gflops, best.faster_variant = v.variant;
      }
      if (!best.faster_variant.empty()) add_comparison(best, tuned_ratios(w.name, threads, onednn_gflops));
    }
  }

  void add_targets(Targets& targets) const {
    for (const auto& t : conv2d_targets(targets_in_)) targets.add(t.what, t.value, t.goal, t.met);
  }
  const Json& rows() const { return rows_; }
  const tf::codegen::Target& target() const { return target_; }
  std::FILE* table() const { return table_; }

 private:
  static int parse_threads(const std::string& text) {
    try {
      size_t used = 0;
      const int n = std::stoi(text, &used);
      if (used == text.size() && n >= 1 && n <= 1024) return n;
    } catch (const std::exception&) {
    }
    throw tf::UsageError("--threads: '" + text + "' is not a thread count from 1 to 1024");
  }

  static std::vector<Conv2dLayerSet> layer_sets(const std::vector<Conv2dWorkload>& file) {
    Conv2dLayerSet resnet{"ResNet-18 layers", {}, 0.85, 0.6}, mobilenet{"MobileNet depthwise layers", {}, 0.85, 0};
    for (const auto& w : file) {
      if (w.model() == "resnet18") resnet.workloads.push_back(w.name);
      if (w.model() == "mobilenet" && w.shape.depthwise()) mobilenet.workloads.push_back(w.name);
    }
    return {resnet, mobilenet};
  }

  // Null (and a "skipped" row saying why) when this build has no such operator or it refuses the shape.
  std::unique_ptr<tf::compiler::Task> make_task(const Conv2dWorkload& w, const Conv2dVariant& v) {
    const auto known = tf::ops::operator_names();
    if (std::find(known.begin(), known.end(), v.op) == known.end()) {
      add_skipped(w, v, 0, "operator " + v.op + " is not in this build");
      return nullptr;
    }
    try {
      return std::make_unique<tf::compiler::Task>(tf::ops::Workload{v.op, tf::ops::parse_shape(v.op, v.shape)},
                                                  target_);
    } catch (const tf::CompileError& e) {
      add_skipped(w, v, 0, e.what());
      return nullptr;
    }
  }

  Tuned tuned_config(const Conv2dWorkload& w, const Conv2dVariant& v, const tf::compiler::Task& task, int threads) {
    Tuned t;
    const std::string key = tf::tuner::local_device_key(threads);
    if (tuned_db_) {
      t.from = o_.tuned_db;
      if (auto best = tuned_db_->best(v.op, task.workload().shape, task.target().str(), key)) {
        t.config = best->config;
        t.gflops_in_job = static_cast<double>(task.op().flops(task.workload().shape)) / best->mean_s() * 1e-9;
        if (best->job_id) note_tuning_job(w, *best->job_id, t);
      } else {
        add_skipped(
            w, v, threads,
            "no tuned config for device key " + key + " and target " + task.target().str() + " in " + o_.tuned_db);
      }
      return t;
    }
    std::fprintf(stderr, "  %s %s, %s: tuning %lld xgb trials into %s\n", w.name.c_str(), v.variant.c_str(),
                 thread_word(threads).c_str(), static_cast<long long>(o_.trials), o_.db.c_str());
    tf::tuner::TuneOptions opts;
    opts.tuner = "xgb";
    opts.trials = o_.trials;
    opts.threads = threads;
    opts.device_key = key;
    opts.measure.min_repeat_ms = o_.tune_min_ms;
    opts.measure.repeat = 3;
    const int64_t every = std::max<int64_t>(1, o_.trials / 8);
    auto progress = [&](const tf::tuner::Progress& p) {
      if (p.trial % every == 0 || p.trial == p.trials) {
        std::fprintf(stderr, "    trial %lld/%lld  best %.1f GFLOPS  %.0f s\n", static_cast<long long>(p.trial),
                     static_cast<long long>(p.trials), p.best_gflops, p.elapsed_s);
      }
    };
    const tf::tuner::TuneResult r = tf::tuner::tune(task, opts, tuning_db_.get(), progress);
    t.from = "this run";
    t.trials = r.trials;
    t.seconds = r.seconds;
    t.trials_per_min = r.seconds > 0 ? static_cast<double>(r.trials) * 60 / r.seconds : 0;
    t.build_ms_median = r.build_ms_median;
    t.gflops_in_job = r.best_gflops;
    if (r.best) {
      t.config = r.best->config;
    } else {
      add_skipped(w, v, threads, "none of the " + std::to_string(r.trials) + " tuning trials ran correctly");
    }
    if (w.model() == "resnet18" && w.shape.r == 3 && w.shape.s == 3)
      targets_in_.resnet18_3x3_trials_per_min.push_back(t.trials_per_min);
    return t;
  }

  // The tuning job that found a config read from a db: its trials and how long it ran, as the db
  // recorded them (first to last write of the job).
  void note_tuning_job(const Conv2dWorkload& w, int64_t job_id, Tuned& t) {
    const auto job = tuned_db_->job(job_id);
    if (!job) return;
    t.trials = static_cast<int64_t>(tuned_db_->job_measurements(job_id).size());
    t.seconds = static_cast<double>(job->updated_ms - job->created_ms) / 1000;
    t.trials_per_min = t.seconds > 0 ? static_cast<double>(t.trials) * 60 / t.seconds : 0;
    if (w.model() == "resnet18" && w.shape.r == 3 && w.shape.s == 3)
      targets_in_.resnet18_3x3_trials_per_min.push_back(t.trials_per_min);
  }

  std::pair<double, std::string> measure_onednn(const Conv2dWorkload& w, int threads, bool winograd) {
    settle();
    Json row = Json::object();
    row["what"] = winograd ? "onednn_winograd" : "onednn";
    row["workload"] = w.name;
    row["threads"] = threads;
    row["shape"] = w.variants.front().shape;
    row["omp_wait_policy"] = omp_wait_policy();
    try {
      const OnednnConvTiming t = [&] {
        const auto lock = hold_timing_lock();
        return time_onednn_conv2d(w.shape, threads, o_.measure.min_ms, o_.measure.repeat, winograd);
      }();
      const double gflops = static_cast<double>(w.shape.flops()) / tf::median(t.seconds) * 1e-9;
      row["gflops"] = gflops;
      row["impl"] = t.impl;
      row["check"] = t.mismatches == 0 ? "pass" : "fail";
      if (t.mismatches) row["mismatches"] = t.mismatches;
      rows_.push_back(row);
      std::fprintf(stderr, "  oneDNN%s, %s: %.1f GFLOPS (%s), check %s\n", winograd ? " winograd" : "",
                   thread_word(threads).c_str(), gflops, t.impl.c_str(),
                   t.mismatches == 0 ? "pass" : ("FAIL: " + std::to_string(t.mismatches) + " elements off").c_str());
      if (o_.onednn_only || winograd) {
        // Its Winograd misses the direct reference's bound by design: the check says how far.
        std::fprintf(table_, "| %s | %d | oneDNN%s | - | %.1f | %s | - | %.1f | %s | - |\n", w.name.c_str(), threads,
                     winograd ? " winograd" : "", gflops, winograd ? (t.mismatches ? "off bound" : "pass") : "-",
                     gflops, t.impl.c_str());
      }
      return {gflops, t.impl};
    } catch (const std::exception& e) {
      row["gflops"] = 0;
      row["error"] = e.what();
      rows_.push_back(row);
      std::fprintf(stderr, "  oneDNN%s, %s: %s\n", winograd ? " winograd" : "", thread_word(threads).c_str(), e.what());
      return {0, "none"};
    }
  }

  // Median compile time (lower + LLVM + link, as the tuner builds a candidate) of random configs of
  // the variant's space; once per workload and variant.
  double compile_ms(const Conv2dWorkload& w, const Conv2dVariant& v, const tf::compiler::Task& task) {
    const std::string key = w.name + "/" + v.variant;
    if (auto it = compile_ms_.find(key); it != compile_ms_.end()) return it->second;
    std::mt19937_64 rng(7);
    std::vector<double> ms;
    for (int64_t i = 0; i < o_.compile_samples; ++i) {
      auto cfg = task.space().at(static_cast<int64_t>(rng() % static_cast<uint64_t>(task.space().size())));
      tf::compiler::BuildTimes times;
      try {
        task.build_shared_library(cfg, &times);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "  %s %s: config %s does not build: %s\n", w.name.c_str(), v.variant.c_str(),
                     cfg.str().c_str(), e.what());
        continue;
      }
      ms.push_back(times.lower_ms + times.codegen_ms);
      targets_in_.compile_ms.push_back(ms.back());
    }
    return compile_ms_[key] = tf::median(ms);
  }

  Measured measure_and_add_row(const Conv2dWorkload& w, const Conv2dVariant& v, const tf::compiler::Task& task,
                               int threads, const std::string& config_name, const tf::space::Config& cfg,
                               const Tuned* tuned, double onednn_gflops, const std::string& onednn_impl) {
    const Measured m = measure_config(task, cfg, static_cast<double>(w.shape.flops()), threads, o_.measure);
    const double ratio = onednn_gflops > 0 ? m.gflops / onednn_gflops : 0;
    const double compile = compile_ms(w, v, task);
    const std::string config = cfg.to_json().dump();
    Json row = Json::object();
    row["what"] = "kernel";
    row["workload"] = w.name;
    row["threads"] = threads;
    row["variant"] = v.variant;
    row["op"] = v.op;
    row["shape"] = v.shape;
    row["config_name"] = config_name;
    row["config"] = config;
    row["run"] = "tunefarm run --op " + v.op + " --shape " + v.shape + " --config '" + config + "' --threads " +
                 std::to_string(threads);
    row["gflops"] = m.gflops;
    row["onednn_gflops"] = onednn_gflops;
    row["onednn_impl"] = onednn_impl;
    row["ratio_onednn"] = ratio;
    row["check"] = m.pass ? "pass" : "fail";
    if (!m.error.empty()) {
      row["error"] = m.error;
      std::fprintf(stderr, "  %s %s %s config, %s: %s\n", w.name.c_str(), v.variant.c_str(), config_name.c_str(),
                   thread_word(threads).c_str(), m.error.c_str());
    }
    row["compile_ms"] = compile;
    if (m.pass && v.op == "conv2d_winograd_nchwc") {
      // What the algorithm costs in accuracy on a real filter (its check above is Winograd arithmetic).
      const WinogradAccuracy acc = winograd_error_vs_direct(task, cfg);
      row["error_vs_direct"] = acc.relative();
      row["within_winograd_bound"] = acc.within_bound;
      std::fprintf(stderr, "  %s %s %s config: max |error| vs direct %.2e of max |output| %.2f%s\n", w.name.c_str(),
                   v.variant.c_str(), config_name.c_str(), acc.relative(), acc.max_abs_output,
                   acc.within_bound ? "" : " (OUTSIDE the bound)");
    }
    if (tuned) {
      row["tuned_from"] = tuned->from;
      row["gflops_in_job"] = tuned->gflops_in_job;
      if (tuned->trials > 0) {
        row["trials"] = tuned->trials;
        row["tuning_seconds"] = tuned->seconds;
        row["trials_per_min"] = tuned->trials_per_min;
        row["tuning_build_ms_median"] = tuned->build_ms_median;
      }
    }
    rows_.push_back(row);
    std::fprintf(table_, "| %s | %d | %s | %s | %.1f | %s | %.2fx | %.1f | %s | %.1f |\n", w.name.c_str(), threads,
                 v.variant.c_str(), config_name.c_str(), m.gflops, m.pass ? "pass" : "FAIL", ratio, onednn_gflops,
                 onednn_impl.c_str(), compile);
    std::fflush(table_);
    return m;
  }

  // Each variant's tuned ratio at this thread count, from the rows just added.
  Json tuned_ratios(const std::string& workload, int threads, double onednn_gflops) const {
    Json out = Json::object();
    for (const auto& row : rows_) {
      if (row.at("what") == "kernel" && row.at("workload") == workload && row.at("threads") == threads &&
          row.at("config_name") == "tuned") {
        out[row.at("variant").get<std::string>()] =
            onednn_gflops > 0 ? row.at("gflops").get<double>() / onednn_gflops : 0;
      }
    }
    return out;
  }

  void add_comparison(const Conv2dComparison& c, const Json& ratios) {
    targets_in_.comparisons.push_back(c);
    Json row = Json::object();
    row["what"] = "tuned_vs_onednn";
    row["workload"] = c.workload;
    row["threads"] = c.threads;
    row["faster_variant"] = c.faster_variant;
    row["tuned_gflops"] = c.tuned_gflops;
    row["onednn_gflops"] = c.onednn_gflops;
    row["ratio_onednn"] = c.ratio();
    row["ratio_onednn_by_variant"] = ratios;
    rows_.push_back(row);
  }

  void add_skipped(const Conv2dWorkload& w, const Conv2dVariant& v, int threads, const std::string& reason) {
    std::fprintf(stderr, "  skip %s %s (%s --shape %s)%s: %s\n", w.name.c_str(), v.variant.c_str(), v.op.c_str(),
                 v.shape.c_str(), threads ? (", " + thread_word(threads)).c_str() : "", reason.c_str());
    Json row = Json::object();
    row["what"] = "skipped";
    row["workload"] = w.name;
    if (threads) row["threads"] = threads;
    row["variant"] = v.variant;
    row["op"] = v.op;
    row["shape"] = v.shape;
    row["reason"] = reason;
    rows_.push_back(row);
  }

  const Options& o_;
  tf::codegen::Target target_;
  std::FILE* table_;
  std::vector<int> threads_;
  std::vector<std::string> variants_;
  std::unique_ptr<tf::db::Database> tuning_db_, tuned_db_;
  std::map<std::string, double> compile_ms_;
  Conv2dTargetInputs targets_in_;
  Json rows_ = Json::array();
};

int run(int argc, char** argv) {
  Options o;
  o.trials = default_trials();
  o.measure.min_ms = 200;
  o.measure.repeat = 5;
  auto app = tf::make_app("conv2d_bench", "Benchmark conv2d kernels (default and tuned configs) against oneDNN.");
  app->add_option("names", o.names, "workload names from the workloads file (default: all)")->type_name("NAME...");
  app->add_option("--workloads", o.workloads, "workload names, comma-separated (with the positional names)")
      ->type_name("NAMES");
  app->add_option("--workloads-file", o.workloads_file, "standard conv2d workloads")->type_name("PATH");
  app->add_option("--threads", o.threads, "thread counts")->type_name("LIST");
  app->add_option(
         "--variants", o.variants,
         "plain (NCHW conv2d), blocked (NCHWc conv2d_nchwc / depthwise_nchwc), winograd-m2/-m4/-m6 (conv2d_winograd_nchwc on "
         "3x3 stride-1 layers; winograd: all three)")
      ->type_name("LIST");
  app->add_option("--trials", o.trials,
                  "xgb trials per workload, variant and thread count (default 400, or TUNEFARM_CONV2D_TRIALS)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  app->add_option("--db", o.db, "tuning database the tuning records go to")->type_name("PATH");
  app->add_option("--tuned", o.tuned_db, "skip tuning: take each workload's best config from this tuning db")
      ->type_name("PATH");
  app->add_option("--tune-min-ms", o.tune_min_ms, "while tuning, each timing lasts at least this long")
      ->type_name("MS")
      ->check(CLI::Range(0.1, 10000.0));
  app->add_option("--compile-samples", o.compile_samples,
                  "random configs per workload and variant whose compile time is measured")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}));
  tf::add_measure_options(*app, o.measure, tf::kTiming);
  app->add_option("--target", o.target, "target string")->type_name("TARGET");
  app->add_option("--name", o.name, "results go to bench/results/NAME.json")->type_name("NAME");
  app->add_flag("--onednn-only", o.onednn_only, "measure oneDNN only (no tuning, none of our kernels)");
  app->add_flag("--json", o.json, "print the results document on stdout (the table and progress go to stderr)");
  app->add_flag("--no-save", o.no_save, "do not write bench/results/NAME.json");
  if (auto code = tf::parse_args(*app, argc, argv)) return *code;

  const std::vector<Conv2dWorkload> file = load_conv2d_workloads(o.workloads_file);
  for (const auto& name : o.names) o.workloads += "," + name;
  const std::vector<Conv2dWorkload> selected = select_conv2d_workloads(file, o.workloads);
  warn_when_busy();
  Conv2dBench bench(o, file);
  bench.print_header();
  for (size_t i = 0; i < selected.size(); ++i) bench.run_workload(selected[i], i, selected.size());

  Targets targets(bench.table());
  std::fprintf(bench.table(), "\n");
  if (!o.onednn_only) bench.add_targets(targets);
  if (!o.no_save) write_results(o.name, bench.target().str(), bench.rows(), targets, bench.table());
  if (o.json)
    std::printf("%s\n", results_document(o.name, bench.target().str(), bench.rows(), targets).dump(2).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tf::bench::bench_main("conv2d_bench", run, argc, argv, 3); }

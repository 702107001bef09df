// The path of a tuning job:
//   1. the workload's reference output, once (compiler op reference on seeded random inputs)
//   2. a worker process that will load and time candidates (runtime/measure_worker.h)
//   3. loop: the tuner proposes a batch -> candidates are built as shared libraries, in parallel,
//      while earlier ones are measured -> each is measured in the worker -> recorded in the db ->
//      the tuner learns from the batch
#include "tuner/tune_job.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <thread>

#include "runtime/host_lock.h"
#include "runtime/measure_worker.h"
#include "runtime/random_fill.h"
#include "tuner/features.h"
#include "tuner/tuner.h"
#include "tuner/xgb_tuner.h"

namespace tf::tuner {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

db::Outcome to_outcome(runtime::MeasureStatus s) {
  switch (s) {
    case runtime::MeasureStatus::Ok: return db::Outcome::Ok;
    case runtime::MeasureStatus::LoadError: return db::Outcome::CompileError;
    case runtime::MeasureStatus::RuntimeError: return db::Outcome::RuntimeError;
    case runtime::MeasureStatus::Timeout: return db::Outcome::Timeout;
    case runtime::MeasureStatus::WrongAnswer: return db::Outcome::WrongAnswer;
  }
  return db::Outcome::RuntimeError;
}

std::string host_name() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

struct Built {
  codegen::SharedLibrary lib;
  double build_ms = 0;
  std::string error;  // non-empty: the build failed
};

// Transfer: measurements of the same op and target (any shape) train the model before this job's
// own results arrive, and a stored model scores the first batch.
void start_from_history(const compiler::Task& task, const TuneOptions& opts, db::Database& db, XgbTuner& xgb) {
  constexpr size_t kMaxPrior = 512;
  std::vector<db::Measurement> prior = db.op_history(task.workload().op, task.target().str(), opts.device_key, kMaxPrior);
  std::map<std::vector<int64_t>, std::unique_ptr<compiler::Task>> tasks;
  std::map<std::vector<int64_t>, double> best_of_shape;
  for (const auto& m : prior) {
    if (m.mean_s() > 0) best_of_shape[m.shape] = std::max(best_of_shape[m.shape], 1.0 / m.mean_s());
  }
  for (const auto& m : prior) {
    if (m.mean_s() <= 0) continue;
    try {
      auto& t = tasks[m.shape];
      if (!t) t = std::make_unique<compiler::Task>(ops::Workload{m.op, m.shape}, task.target());
      xgb.add_prior(candidate_features(*t, t->space().from_json(m.config)), (1.0 / m.mean_s()) / best_of_shape[m.shape]);
    } catch (const std::exception&) {
      // A record from an older space (a knob since renamed) simply does not transfer.
    }
  }
  if (auto stored = db.load_model(task.workload().op, task.target().str(), opts.device_key, kFeatureVersion)) {
    try {
      xgb.model().load(stored->bytes);
    } catch (const std::exception&) {
      // A model XGBoost cannot read is retrained from the history instead.
    }
  }
}

}  // namespace

std::string local_device_key(int threads) { return threads <= 1 ? "local" : "local-" + std::to_string(threads) + "t"; }

runtime::WorkloadSetup make_workload_setup(const compiler::Task& task, uint64_t seed) {
  const auto& shape = task.workload().shape;
  runtime::WorkloadSetup s;
  s.seed = seed;
  std::vector<std::vector<float>> inputs;
  for (const auto& in : task.op().input_shapes(shape)) {
    runtime::TensorSpec t;
    t.shape = in;
    inputs.emplace_back(static_cast<size_t>(t.num_elements()));
    runtime::fill_uniform(inputs.back().data(), t.num_elements(), runtime::input_seed(seed, static_cast<int>(s.args.size())));
    s.args.push_back(t);
  }
  s.num_inputs = static_cast<int>(s.args.size());
  runtime::TensorSpec out;
  out.shape = task.op().output_shape(shape);
  s.args.push_back(out);
  std::vector<const float*> ptrs;
  for (const auto& v : inputs) ptrs.push_back(v.data());
  task.op().reference(shape, ptrs, &s.expected, &s.tolerance);
  return s;
}

TuneResult tune(const compiler::Task& task, const TuneOptions& opts, db::Database* db,
                const std::function<void(const Progress&)>& on_progress) {
  const auto start = Clock::now();
  auto tuner = make_tuner(opts.tuner, task.space(), opts.trials, opts.seed,
                          [&task](const space::Config& c) { return candidate_features(task, c); });
  auto* xgb = dynamic_cast<XgbTuner*>(tuner.get());
  if (xgb && db) start_from_history(task, opts, *db, *xgb);

  // 1-2. Reference and worker.
  runtime::MeasureWorker worker(opts.worker_path.empty() ? runtime::MeasureWorker::default_path() : opts.worker_path, {},
                                opts.threads);
  worker.setup(make_workload_setup(task, opts.seed));

  TuneResult result;
  std::optional<int64_t> job_id;
  if (db) {
    json::Value spec = json::Value::object();
    spec.set("op", task.workload().op);
    json::Value shape = json::Value::array();
    for (int64_t d : task.workload().shape) shape.push(d);
    spec.set("shape", shape);
    spec.set("target", task.target().str());
    spec.set("tuner", opts.tuner);
    spec.set("trials", opts.trials);
    spec.set("seed", static_cast<int64_t>(opts.seed));
    spec.set("threads", opts.threads);
    job_id = db->create_job(spec, "local");
    result.job_id = *job_id;
  }
  // A build on a core the timed kernel runs on slows the kernel down (on another core it costs
  // ~1.5% here: shared caches and memory). Unless the kernel's threads leave the builders cores of
  // their own, a build holds the timing lock shared, so builds and timings take turns while
  // loading, checking and recording still overlap a build.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const bool builds_beside_timing = opts.threads + std::max(1, opts.compile_threads) <= cores;
  const std::string build_lock = builds_beside_timing ? "" : opts.measure.timing_lock;
  result.timing_isolation = opts.measure.timing_lock.empty()
                                ? "none (no timing lock)"
                                : "host-wide lock " + opts.measure.timing_lock + " held while timing" +
                                      (builds_beside_timing ? "; builds run beside timing on the cores the kernel leaves free"
                                                            : "; builds wait for timing to end (held shared)");
  const double flops = static_cast<double>(task.op().flops(task.workload().shape));
  const std::string device = host_name();
  std::vector<double> build_ms, overhead_ms, worker_overhead_ms;
  double search_ms = 0;
  auto trial_start = Clock::now();  // the end of the previous trial: a trial's wall time includes
                                    // waiting for its build and, at a batch's start, for the tuner

  // 3. The loop.
  while (!tuner->done()) {
    const auto search_start = Clock::now();
    std::vector<space::Config> batch = tuner->next_batch(opts.batch);
    search_ms += ms_between(search_start, Clock::now());
    if (batch.empty()) break;
    // Build in the background, at most compile_threads at a time, in proposal order.
    std::vector<std::future<Built>> builds;
    const int width = std::max(1, opts.compile_threads);
    auto launch = [&](size_t i) {
      builds.push_back(std::async(std::launch::async, [&task, &build_lock, cfg = batch[i]] {
        Built b;
        runtime::HostLock turn(build_lock, runtime::HostLock::Mode::Shared);
        auto t0 = Clock::now();
        try {
          b.lib = task.build_shared_library(cfg);
        } catch (const std::exception& e) {
          b.error = e.what();
        }
        b.build_ms = ms_between(t0, Clock::now());
        return b;
      }));
    };
    for (size_t i = 0; i < batch.size() && static_cast<int>(i) < width; ++i) launch(i);
    std::vector<TrialResult> results;
    for (size_t i = 0; i < batch.size(); ++i) {
      Built built = builds[i].get();
      if (builds.size() < batch.size()) launch(builds.size());
      const auto t0 = Clock::now();
      runtime::MeasureResult m;
      if (!built.error.empty()) {
        m.status = runtime::MeasureStatus::LoadError;
        m.error = built.error;
      } else {
        m = worker.measure(built.lib.bytes, built.lib.entry_symbol, opts.measure);
      }
      db::Measurement rec;
      rec.op = task.workload().op;
      rec.shape = task.workload().shape;
      rec.target = task.target().str();
      rec.device_key = opts.device_key;
      rec.config = batch[i].to_json();
      rec.config_index = batch[i].index();
      rec.costs = m.costs;
      rec.outcome = to_outcome(m.status);
      rec.error = m.error;
      rec.build_ms = built.build_ms;
      rec.device = device;
      rec.compiler_version = "tunefarm 0.1 / LLVM 16";
      rec.job_id = job_id;
      if (db) db->record(rec);
      double timed_ms = 0;
      for (double c : m.costs) timed_ms += c * 1000 * std::max(1, m.number);
      const auto trial_end = Clock::now();
      worker_overhead_ms.push_back(std::max(0.0, ms_between(t0, trial_end) - timed_ms));
      overhead_ms.push_back(std::max(0.0, ms_between(trial_start, trial_end) - timed_ms));
      trial_start = trial_end;
      build_ms.push_back(built.build_ms);

      const bool ok = m.status == runtime::MeasureStatus::Ok && !m.costs.empty();
      // The mean over repeats, as the database ranks configs by it: `tunefarm best` and this job
      // must agree on which config won.
      const double gflops = ok ? flops / rec.mean_s() * 1e-9 : 0;
      results.push_back({batch[i].index(), ok, gflops});
      ++result.trials;
      (ok ? result.ok : result.failed)++;
      if (ok && gflops > result.best_gflops) {
        result.best_gflops = gflops;
        result.best = rec;
      }
      result.best_curve.push_back(result.best_gflops);
      if (on_progress) {
        Progress p;
        p.trial = result.trials;
        p.trials = std::min(opts.trials, task.space().size());
        p.gflops = gflops;
        p.best_gflops = result.best_gflops;
        p.outcome = ok ? "ok" : db::outcome_name(rec.outcome);
        p.elapsed_s = ms_between(start, Clock::now()) / 1000;
        p.eta_s = p.elapsed_s / static_cast<double>(p.trial) * static_cast<double>(p.trials - p.trial);
        on_progress(p);
      }
    }
    const auto update_start = Clock::now();
    tuner->update(results);
    search_ms += ms_between(update_start, Clock::now());
    if (db && job_id) {
      json::Value progress = json::Value::object();
      progress.set("trials", result.trials);
      progress.set("best_gflops", result.best_gflops);
      db->update_job(*job_id, "running", progress);
    }
  }
  if (db && job_id) {
    json::Value progress = json::Value::object();
    progress.set("trials", result.trials);
    progress.set("best_gflops", result.best_gflops);
    db->update_job(*job_id, result.ok > 0 ? "done" : "failed", progress);
  }
  if (xgb && db && xgb->model().trained()) {
    db::CostModel model;
    model.feature_version = kFeatureVersion;
    model.training_size = result.trials;
    model.bytes = xgb->model().save();
    db->save_model(task.workload().op, task.target().str(), opts.device_key, model);
  }
  result.seconds = ms_between(start, Clock::now()) / 1000;
  result.build_ms_median = median(build_ms);
  result.overhead_ms_median = median(overhead_ms);
  result.worker_overhead_ms_median = median(worker_overhead_ms);
  result.search_ms_per_trial = result.trials > 0 ? search_ms / static_cast<double>(result.trials) : 0;
  return result;
}

}  // namespace tf::tuner

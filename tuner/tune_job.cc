// The path of a tuning job:
//   1. the workload's reference output, once (compiler op reference on seeded random inputs)
//   2. a worker process that will load and time candidates (runtime/measure_worker.h)
//   3. loop: the tuner proposes a batch -> candidates are built as shared libraries, in parallel,
//      while earlier ones are measured -> each is measured in the worker -> recorded in the db ->
//      the tuner learns from the batch
//   4. the fastest few measured again, in a fresh worker; 5. the cost model saved
// tune() at the end of this file calls these phases (TuneRun's methods) in that order.
#include "tuner/tune_job.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <thread>

#include "runtime/random_fill.h"
#include "runtime/thread_pool.h"
#include "support/stats.h"
#include "tuner/builder.h"
#include "tuner/features.h"
#include "tuner/make_tuner.h"
#include "tuner/measurer.h"
#include "tuner/tuner.h"
#include "tuner/seed_records.h"
#include "tuner/xgb_tuner.h"

namespace tf::tuner {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
double seconds_since(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

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

// Transfer: measurements of the same op and target (any shape), timed as this job times, train the
// model before this job's own results arrive, and a stored model scores the first batch. A db without such history (a fresh
// farm) transfers from the records shipped with tunefarm for the target's kind, unless told not to.
// Returns what the job started from, for the output.
std::string start_from_history(const compiler::Task& task, const TuneOptions& opts, db::Database* db, XgbTuner& xgb) {
  constexpr size_t kMaxPrior = 512;
  std::vector<db::Measurement> prior;
  std::string source;
  if (db) {
    const int64_t skipped_before = db->invalid_rows_skipped();
    prior = db->op_history(task.workload().op, task.target().str(), opts.device_key, kMaxPrior, opts.measure.cold_inputs);
    source = std::to_string(prior.size()) + " records of " + task.workload().op + " from the db";
    if (const int64_t skipped = db->invalid_rows_skipped() - skipped_before; skipped > 0) {
      source += " (" + std::to_string(skipped) + " with unusable stored timings skipped)";
    }
  }
  if (prior.empty() && opts.seed_records) {
    prior = seed_records(task.workload().op, task.target());
    if (prior.size() > kMaxPrior) prior.erase(prior.begin(), prior.end() - static_cast<std::ptrdiff_t>(kMaxPrior));
    source = std::to_string(prior.size()) + " shipped seed records of " + task.workload().op + " (" + task.target().cpu + ")";
  }
  if (prior.empty()) source = "nothing (no history of " + task.workload().op + " on this target)";
  // Per shape, fastest first: its first records are where the search starts (mapped into this
  // space) and the speed every record of the shape is labelled against.
  std::map<std::vector<int64_t>, std::vector<const db::Measurement*>> by_shape;
  for (const auto& m : prior) {
    if (m.mean_s() > 0) by_shape[m.shape].push_back(&m);
  }
  constexpr size_t kStartsPerShape = 2;
  for (auto& [shape, list] : by_shape) {
    std::sort(list.begin(), list.end(), [](const auto* a, const auto* b) { return a->mean_s() < b->mean_s(); });
    for (size_t i = 0; i < list.size() && i < kStartsPerShape; ++i) xgb.add_start_point(task.space().nearest(list[i]->config).index());
    std::unique_ptr<compiler::Task> shape_task;
    for (const auto* m : list) {
      try {
        if (!shape_task) shape_task = std::make_unique<compiler::Task>(ops::Workload{m->op, shape}, task.target());
        xgb.add_prior(m->workload_key(), candidate_features(*shape_task, shape_task->space().from_json(m->config)),
                      list.front()->mean_s() / m->mean_s());
      } catch (const std::exception&) {
        // A record from an older space (a knob since renamed) simply does not transfer.
      }
    }
  }
  if (!db) return source;
  if (auto stored = db->load_model(task.workload().op, task.target().str(), opts.device_key, kFeatureVersion)) {
    try {
      xgb.model().load(stored->bytes, static_cast<int>(candidate_features(task, task.space().default_config()).size()));
    } catch (const std::exception&) {
      // A model XGBoost cannot read is retrained from the history instead.
    }
    source += ", stored model";
  }
  return source;
}

}  // namespace

TimeSpent& TimeSpent::operator+=(const TimeSpent& o) {
  start += o.start;
  search += o.search;
  build_wait += o.build_wait;
  timed += o.timed;
  measuring += o.measuring;
  record += o.record;
  confirm += o.confirm;
  return *this;
}

std::string local_device_key(int threads) { return threads <= 1 ? "local" : "local-" + std::to_string(threads) + "t"; }

runtime::WorkloadSetup make_workload_setup(const compiler::Task& task, uint64_t seed) {
  const auto& shape = task.workload().shape;
  const std::vector<ir::DataType> types = task.argument_types();
  runtime::WorkloadSetup s;
  s.seed = seed;
  std::vector<std::vector<float>> inputs;
  bool all_float32 = true;
  auto typed = [&](runtime::TensorSpec t) {
    const ir::DataType type = types.at(s.args.size());
    t.dtype_code = type.is_float() ? TF_DTYPE_FLOAT : type.code == ir::DataType::UInt ? TF_DTYPE_UINT : TF_DTYPE_INT;
    t.dtype_bits = type.bits;
    all_float32 = all_float32 && type == ir::DataType::float32();
    return t;
  };
  for (const auto& in : task.op().input_shapes(shape)) {
    runtime::TensorSpec t;
    t.shape = in;
    inputs.emplace_back(static_cast<size_t>(t.num_elements()));
    runtime::fill_uniform(inputs.back().data(), t.num_elements(), runtime::input_seed(seed, static_cast<int>(s.args.size())));
    s.args.push_back(typed(t));
  }
  s.num_inputs = static_cast<int>(s.args.size());
  runtime::TensorSpec out;
  out.shape = task.op().output_shape(shape);
  s.args.push_back(typed(out));
  // The worker fills float32 inputs only (others stay 0, an index in range of any gather) and
  // checks a float32 output: a typed kernel is timed unchecked.
  if (!all_float32) return s;
  std::vector<const float*> ptrs;
  for (const auto& v : inputs) ptrs.push_back(v.data());
  task.op().reference(shape, ptrs, &s.expected, &s.tolerance);
  return s;
}

namespace {

// A measured candidate as the database keeps it.
db::Measurement make_record(const compiler::Task& task, const TuneOptions& opts, const space::Config& cfg,
                            const Built& built, const Measured& m, std::optional<int64_t> job_id) {
  db::Measurement rec;
  rec.op = task.workload().op;
  rec.shape = task.workload().shape;
  rec.target = task.target().str();
  rec.device_key = opts.device_key;
  rec.config = cfg.to_json();
  rec.config_index = cfg.index();
  rec.costs = m.result.costs;
  rec.outcome = to_outcome(m.result.status);
  rec.error = m.result.error;
  rec.build_ms = built.build_ms;
  rec.device = m.device;
  rec.compiler_version = compiler::version();
  rec.job_id = job_id;
  rec.timing = opts.measure.cold_inputs;
  return rec;
}

Json job_spec_json(const compiler::Task& task, const TuneOptions& opts) {
  Json spec = Json::object();
  spec["op"] = task.workload().op;
  Json shape = Json::array();
  for (int64_t d : task.workload().shape) shape.push_back(d);
  spec["shape"] = shape;
  spec["target"] = task.target().str();
  spec["tuner"] = opts.tuner;
  spec["trials"] = opts.trials;
  spec["seed"] = static_cast<int64_t>(opts.seed);
  spec["threads"] = opts.threads;
  return spec;
}

}  // namespace


// One job's state along its path; tune() below calls its phases in order, TaskTuning one batch at
// a time.
class TuneRun {
 public:
  TuneRun(const compiler::Task& task, const TuneOptions& opts, db::Database* db,
          std::function<void(const Progress&)> on_progress)
      : task_(task), opts_(opts), db_(db), on_progress_(std::move(on_progress)), start_(Clock::now()),
        flops_(static_cast<double>(task.op().flops(task.workload().shape))) {
    tuner_ = make_tuner(opts.tuner, task.space(), opts.trials, opts.seed,
                        [&task](const space::Config& c) { return candidate_features(task, c); });
    xgb_ = dynamic_cast<XgbTuner*>(tuner_.get());
    if (xgb_ && !opts.default_first) xgb_->skip_default();
    if (xgb_) result_.transfer = start_from_history(task, opts, db, *xgb_);
    job_id_ = opts.job_id;
    own_job_ = db && !job_id_;
    if (own_job_) job_id_ = db->create_job(job_spec_json(task, opts), opts.owner);
    if (job_id_) result_.job_id = *job_id_;
    result_.spent.start += seconds_since(start_);
  }

  void replay();
  void wire();
  void search();
  bool step(int max_batch);
  void confirm_best();
  void finish_job();
  void save_model();
  TuneResult summary();
  const TuneResult& result() const { return result_; }
  bool exhausted() const { return tuner_->done(); }

 private:
  bool stop_requested() const { return opts_.stop && opts_.stop->load(); }
  void run_batch(const std::vector<space::Config>& batch);
  void count_trial(const db::Measurement& rec, bool ok, double gflops);
  void keep_if_fastest(int64_t config_index, double gflops, codegen::SharedLibrary lib);
  void report(const std::string& outcome, double gflops);
  void record_job_state(const char* state) {
    Json progress = Json::object();
    progress["trials"] = result_.trials;
    progress["best_gflops"] = result_.best_gflops;
    db_->update_job(*job_id_, state, progress);
  }

  const compiler::Task& task_;
  const TuneOptions opts_;
  db::Database* db_;
  const std::function<void(const Progress&)> on_progress_;
  const Clock::time_point start_;
  const double flops_;
  std::unique_ptr<Tuner> tuner_;
  XgbTuner* xgb_ = nullptr;
  std::optional<int64_t> job_id_;
  bool own_job_ = false;
  TuneResult result_;
  std::vector<std::pair<double, db::Measurement>> ok_trials_;  // for confirming the best at the end
  std::multimap<double, int64_t> fastest_by_speed_;              // GFLOPS -> config index, slowest first
  std::map<int64_t, codegen::SharedLibrary> fastest_libraries_;  // by config index
  runtime::WorkloadSetup setup_;                                 // inputs and reference output, made once

  std::unique_ptr<Builder> own_builder_;
  Builder* builder_ = nullptr;
  std::unique_ptr<Measurer> own_measurer_;
  std::shared_ptr<TimingCores> cores_;  // null: measured elsewhere
  Measurer* measurer_ = nullptr;

  std::vector<double> build_ms_, overhead_ms_, worker_overhead_ms_;
  double search_ms_ = 0;
  Clock::time_point trial_start_;  // the end of the previous trial: a trial's wall time includes
                                   // waiting for its build and, at a batch's start, for the tuner
};

// The libraries of the fastest trials so far, which confirm_best() would otherwise build again.
void TuneRun::keep_if_fastest(int64_t config_index, double gflops, codegen::SharedLibrary lib) {
  const size_t keep = static_cast<size_t>(std::max(0, 3 * opts_.confirm_top));
  if (keep == 0) return;
  if (fastest_by_speed_.size() >= keep && gflops <= fastest_by_speed_.begin()->first) return;
  fastest_by_speed_.emplace(gflops, config_index);
  fastest_libraries_[config_index] = std::move(lib);
  while (fastest_by_speed_.size() > keep) {
    fastest_libraries_.erase(fastest_by_speed_.begin()->second);
    fastest_by_speed_.erase(fastest_by_speed_.begin());
  }
}

// Every trial, measured now or replayed, counts the same way.
void TuneRun::count_trial(const db::Measurement& rec, bool ok, double gflops) {
  if (ok) ok_trials_.emplace_back(gflops, rec);
  ++result_.trials;
  (ok ? result_.ok : result_.failed)++;
  if (ok && gflops > result_.best_gflops) {
    result_.best_gflops = gflops;
    result_.best = rec;
  }
  result_.best_curve.push_back(result_.best_gflops);
}

void TuneRun::report(const std::string& outcome, double gflops) {
  if (!on_progress_) return;
  Progress p;
  p.trial = result_.trials;
  p.trials = std::min(opts_.trials, task_.space().searchable_size());
  p.gflops = gflops;
  p.best_gflops = result_.best_gflops;
  p.outcome = outcome;
  p.ok = result_.ok;
  p.failed = result_.failed;
  if (result_.best) p.best_config = result_.best->config;
  p.elapsed_s = ms_between(start_, Clock::now()) / 1000;
  const double done_here = static_cast<double>(result_.trials - result_.replayed);
  if (done_here > 0) p.eta_s = p.elapsed_s / done_here * static_cast<double>(std::max<int64_t>(0, p.trials - p.trial));
  on_progress_(p);
}

// A resumed job: what was measured before counts against the budget and teaches the tuner.
void TuneRun::replay() {
  if (!db_ || !job_id_ || !opts_.resume) return;
  std::vector<TrialResult> replay;
  for (const auto& m : db_->job_measurements(*job_id_)) {
    if (m.op != task_.workload().op || m.shape != task_.workload().shape || m.config_index < 0) continue;
    tuner_->mark_seen(m.config_index);
    const bool ok = m.outcome == db::Outcome::Ok && m.mean_s() > 0;
    const double gflops = ok ? flops_ / m.mean_s() * 1e-9 : 0;
    replay.push_back({m.config_index, ok, gflops});
    count_trial(m, ok, gflops);
  }
  result_.replayed = result_.trials;
  if (!replay.empty()) {
    tuner_->update(replay);
    report("replayed", 0);
  }
}

// The reference, the builder and the measurer.
// A build on a core the timed kernel runs on slows the kernel down (on another core it costs
// ~1.5% here: shared caches and memory). A local job's builders use every core between its timings
// and stay off the kernel's cores during each (TimingCores: moved off them, or waiting when the
// kernel needs every core), while loading, checking and recording still overlap the builds.
void TuneRun::wire() {
  const auto wire_start = Clock::now();
  const std::vector<int> cpus = runtime::usable_cpus();
  const int cores = static_cast<int>(std::max<size_t>(1, cpus.size()));
  const int threads = opts_.compile_threads > 0 ? opts_.compile_threads : cores;
  if (!opts_.measurer) cores_ = std::make_shared<TimingCores>(cpus, opts_.threads);
  builder_ = opts_.builder;
  if (!builder_) {
    if (cores_) {
      own_builder_ = std::make_unique<LocalBuilder>(threads, cores_, opts_.measure.timing_lock);
    } else {
      own_builder_ = std::make_unique<LocalBuilder>(threads);  // measured elsewhere: nothing to disturb here
    }
    builder_ = own_builder_.get();
  }
  measurer_ = opts_.measurer;
  if (!measurer_) {
    own_measurer_ = std::make_unique<LocalMeasurer>(opts_.worker_path, opts_.threads, cores_);
    measurer_ = own_measurer_.get();
    const std::string builds = cores_->takes_turns()
                                   ? "; builds wait for each timing, and it for them"
                                   : "; the kernel pinned to CPU " + runtime::cpu_list_text(cores_->kernel_cpus()) +
                                         ", builds leave it while it is timed";
    result_.timing_isolation = opts_.measure.timing_lock.empty()
                                   ? "none (no timing lock)" + builds
                                   : "host-wide lock " + opts_.measure.timing_lock + " held while timing" + builds;
  }
  setup_ = make_workload_setup(task_, opts_.seed);
  measurer_->setup(setup_);
  result_.spent.start += seconds_since(wire_start);
}

// The loop: the tuner proposes a batch, the batch is built and measured, the tuner learns.
void TuneRun::search() {
  while (step(std::max(opts_.batch, measurer_->capacity()))) {
  }
}

// One batch of at most `max_batch` candidates; false when there was nothing left to do.
bool TuneRun::step(int max_batch) {
  if (tuner_->done() || stop_requested()) {
    result_.stopped = stop_requested();
    return false;
  }
  const auto search_start = Clock::now();
  trial_start_ = search_start;
  std::vector<space::Config> batch = tuner_->next_batch(std::max(1, max_batch));
  search_ms_ += ms_between(search_start, Clock::now());
  if (batch.empty()) return false;
  run_batch(batch);
  if (own_job_) record_job_state("running");
  result_.stopped = stop_requested();
  return !result_.stopped;
}

// Builds run ahead, builder->width() at a time, in proposal order; up to capacity() built
// candidates are being measured at once.
void TuneRun::run_batch(const std::vector<space::Config>& batch) {
  std::vector<std::future<Built>> builds;
  // A build refers to task_; when recording a trial fails (the db cannot be written) this run ends
  // early, and the builds still queued must be done before the job and its task go away.
  struct WaitForBuilds {
    std::vector<std::future<Built>>& builds;
    ~WaitForBuilds() {
      for (auto& b : builds) {
        if (b.valid()) b.wait();
      }
    }
  } wait_for_builds{builds};
  std::vector<Built> built(batch.size());
  std::vector<std::future<Measured>> measuring(batch.size());
  size_t submitted = 0;
  auto launch_builds = [&] {
    while (builds.size() < batch.size() && builds.size() < submitted + static_cast<size_t>(builder_->width())) {
      builds.push_back(builder_->build(task_, batch[builds.size()]));
    }
  };
  launch_builds();
  std::vector<TrialResult> results;
  for (size_t i = 0; i < batch.size(); ++i) {
    while (submitted < batch.size() && submitted < i + static_cast<size_t>(measurer_->capacity()) && !stop_requested()) {
      const auto wait_start = Clock::now();
      built[submitted] = builds[submitted].get();
      result_.spent.build_wait += seconds_since(wait_start);
      ++submitted;
      launch_builds();
      const Built& b = built[submitted - 1];
      if (b.error.empty()) {
        measuring[submitted - 1] = measurer_->measure(b.lib.bytes, b.lib.entry_symbol, opts_.measure);
      } else {
        std::promise<Measured> failed;
        Measured m;
        m.result.status = runtime::MeasureStatus::LoadError;
        m.result.error = b.error;
        failed.set_value(m);
        measuring[submitted - 1] = failed.get_future();
      }
    }
    if (i >= submitted) break;  // stopped: nothing more was sent
    const auto t0 = Clock::now();
    Measured m = measuring[i].get();
    const auto measured = Clock::now();
    if (m.cancelled) continue;
    db::Measurement rec = make_record(task_, opts_, batch[i], built[i], m, job_id_);
    if (db_) db_->record(rec);
    double timed_ms = 0;
    for (double c : m.result.costs) timed_ms += c * 1000 * std::max(1, m.result.number);
    const auto trial_end = Clock::now();
    result_.spent.timed += timed_ms / 1000;
    result_.spent.measuring += std::max(0.0, ms_between(t0, measured) - timed_ms) / 1000;
    result_.spent.record += ms_between(measured, trial_end) / 1000;
    worker_overhead_ms_.push_back(std::max(0.0, ms_between(t0, trial_end) - timed_ms));
    overhead_ms_.push_back(std::max(0.0, ms_between(trial_start_, trial_end) - timed_ms));
    trial_start_ = trial_end;
    if (!built[i].cached && built[i].error.empty()) build_ms_.push_back(built[i].build_ms);

    const bool ok = m.result.status == runtime::MeasureStatus::Ok && !m.result.costs.empty();
    // The mean over repeats, as the database ranks configs by it: `tunefarm best` and this job
    // must agree on which config won.
    const double gflops = ok ? flops_ / rec.mean_s() * 1e-9 : 0;
    results.push_back({batch[i].index(), ok, gflops});
    count_trial(rec, ok, gflops);
    if (ok) keep_if_fastest(batch[i].index(), gflops, std::move(built[i].lib));
    report(ok ? "ok" : db::outcome_name(rec.outcome), gflops);
  }
  // Candidates still in flight when the job was stopped are waited for (the measurer answers a
  // cancelled job's at once), so nothing refers to this frame's builds afterwards.
  for (size_t i = results.size(); i < submitted; ++i) {
    if (measuring[i].valid()) measuring[i].wait();
  }
  const auto update_start = Clock::now();
  tuner_->update(results);
  search_ms_ += ms_between(update_start, Clock::now());
}

// A job's best is the maximum of many noisy measurements, and a kernel's speed also varies from
// process to process with the physical layout of its buffers; so the fastest few are measured
// again (on this host in a fresh worker process) and their timings appended to their records, more
// of them while an unconfirmed one still looks faster than the best confirmed. The db then ranks
// them on both measurements.
void TuneRun::confirm_best() {
  if (result_.stopped || opts_.confirm_top <= 0 || ok_trials_.size() < 2) return;
  const auto confirm_start = Clock::now();
  struct AddTime {
    double& to;
    Clock::time_point from;
    ~AddTime() { to += seconds_since(from); }
  } add_time{result_.spent.confirm, confirm_start};
  std::unique_ptr<Measurer> fresh;
  Measurer* confirmer = opts_.measurer;
  if (!confirmer) {
    fresh = std::make_unique<LocalMeasurer>(opts_.worker_path, opts_.threads, cores_);
    fresh->setup(setup_);
    confirmer = fresh.get();
  }
  std::stable_sort(ok_trials_.begin(), ok_trials_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const size_t most = std::min(ok_trials_.size(), static_cast<size_t>(3 * opts_.confirm_top));
  double best = 0;
  const db::Measurement* winner = nullptr;
  for (size_t i = 0; i < most && !stop_requested(); ++i) {
    if (i >= static_cast<size_t>(opts_.confirm_top) && ok_trials_[i].first <= best) break;
    db::Measurement& rec = ok_trials_[i].second;
    Built b;
    if (auto kept = fastest_libraries_.find(rec.config_index); kept != fastest_libraries_.end()) {
      b.lib = kept->second;
    } else {
      b = builder_->build(task_, task_.space().at(rec.config_index)).get();
    }
    if (!b.error.empty()) continue;
    Measured m = confirmer->measure(b.lib.bytes, b.lib.entry_symbol, opts_.measure).get();
    if (m.cancelled || m.result.status != runtime::MeasureStatus::Ok || m.result.costs.empty()) continue;
    if (db_ && job_id_) db_->add_repeats(*job_id_, rec, m.result.costs);
    rec.costs.insert(rec.costs.end(), m.result.costs.begin(), m.result.costs.end());
    ++result_.confirmed;
    const double gflops = flops_ / rec.mean_s() * 1e-9;
    if (gflops > best) {
      best = gflops;
      winner = &rec;
    }
  }
  if (winner) {
    result_.best = *winner;
    result_.best_gflops = best;
  }
  // With a db, the job names the config `tunefarm best` will (the two agree unless the cap above
  // left a faster-looking config unconfirmed).
  if (db_ && job_id_) {
    if (auto b = db_->best(task_.workload().op, task_.workload().shape, task_.target().str(), opts_.device_key,
                           opts_.measure.cold_inputs)) {
      if (b->job_id == job_id_) {
        result_.best = *b;
        result_.best_gflops = flops_ / b->mean_s() * 1e-9;
      }
    }
  }
}

// A job tune() created itself ends here; the tracker's jobs end where the tracker says.
void TuneRun::finish_job() {
  if (own_job_) record_job_state(result_.stopped ? "cancelled" : result_.ok > 0 ? "done" : "failed");
}

void TuneRun::save_model() {
  if (!xgb_ || !db_ || !xgb_->model().trained()) return;
  db::CostModel model;
  model.feature_version = kFeatureVersion;
  model.training_size = result_.trials;
  model.bytes = xgb_->model().save();
  db_->save_model(task_.workload().op, task_.target().str(), opts_.device_key, model);
}

TuneResult TuneRun::summary() {
  result_.seconds = ms_between(start_, Clock::now()) / 1000;
  result_.build_ms_median = median(build_ms_);
  result_.overhead_ms_median = median(overhead_ms_);
  result_.worker_overhead_ms_median = median(worker_overhead_ms_);
  const int64_t measured_here = result_.trials - result_.replayed;
  result_.search_ms_per_trial = measured_here > 0 ? search_ms_ / static_cast<double>(measured_here) : 0;
  result_.spent.search = search_ms_ / 1000;
  return result_;
}


TuneResult tune(const compiler::Task& task, const TuneOptions& opts, db::Database* db,
                const std::function<void(const Progress&)>& on_progress) {
  TuneRun run(task, opts, db, on_progress);
  run.replay();
  run.wire();
  run.search();
  run.confirm_best();
  run.finish_job();
  run.save_model();
  return run.summary();
}

TaskTuning::TaskTuning(const compiler::Task& task, const TuneOptions& opts, db::Database* db,
                       std::function<void(const Progress&)> on_progress)
    : run_(std::make_unique<TuneRun>(task, opts, db, std::move(on_progress))) {}

TaskTuning::~TaskTuning() = default;

void TaskTuning::start() {
  run_->replay();
  run_->wire();
}

bool TaskTuning::step(int max_batch) { return run_->step(max_batch); }

void TaskTuning::finish() {
  run_->confirm_best();
  run_->finish_job();
  run_->save_model();
}

TuneResult TaskTuning::summary() { return run_->summary(); }
const TuneResult& TaskTuning::result() const { return run_->result(); }
bool TaskTuning::exhausted() const { return run_->exhausted(); }

}  // namespace tf::tuner

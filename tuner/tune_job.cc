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

#include "compiler/codegen/abi_dtype.h"
#include "runtime/random_fill.h"
#include "runtime/thread_pool.h"
#include "support/stats.h"
#include "tuner/builder.h"
#include "tuner/candidate_pipeline.h"
#include "tuner/fastest_libraries.h"
#include "tuner/features.h"
#include "tuner/make_tuner.h"
#include "tuner/measurer.h"
#include "tuner/seed_records.h"
#include "tuner/trial_times.h"
#include "tuner/tuner.h"
#include "tuner/workbench.h"
#include "tuner/xgb_tuner.h"

namespace tf::tuner {
namespace {

using Clock = TrialTimes::Clock;

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
// model before this job's own results arrive, and a stored model scores the first batch. A db without such history (a
// fresh farm) transfers from the records shipped with tunefarm for the target's kind, unless told not to. Returns what
// the job started from, for the output.
std::string start_from_history(const compiler::Task& task, const TuneOptions& opts, db::Database* db, XgbTuner& xgb) {
  constexpr size_t kMaxPrior = 512;
  std::vector<db::Measurement> prior;
  std::string source;
  if (db) {
    const int64_t skipped_before = db->invalid_rows_skipped();
    prior =
        db->op_history(task.workload().op, task.target().str(), opts.device_key, kMaxPrior, opts.measure.cold_inputs);
    source = std::to_string(prior.size()) + " records of " + task.workload().op + " from the db";
    if (const int64_t skipped = db->invalid_rows_skipped() - skipped_before; skipped > 0) {
      source += " (" + std::to_string(skipped) + " with unusable stored timings skipped)";
    }
  }
  if (prior.empty() && opts.seed_records) {
    prior = seed_records(task.workload().op, task.target());
    if (prior.size() > kMaxPrior) prior.erase(prior.begin(), prior.end() - static_cast<std::ptrdiff_t>(kMaxPrior));
    source = std::to_string(prior.size()) + " shipped seed records of " + task.workload().op + " (" +
             task.target().cpu + ")";
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
    for (size_t i = 0; i < list.size() && i < kStartsPerShape; ++i)
      xgb.add_start_point(task.space().nearest(list[i]->config).index());
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
  auto typed = [&](runtime::TensorSpec t) {
    const ir::DataType type = types.at(s.args.size());
    t.dtype_code = codegen::abi_dtype_code(type);
    t.dtype_bits = type.bits;
    return t;
  };
  // The reference reads every input as floats (integers up to 2^24 exactly), from the values the
  // worker will make from the seed.
  std::vector<std::vector<float>> inputs;
  for (const auto& in : task.op().input_shapes(shape)) {
    const int index = static_cast<int>(s.args.size());
    runtime::TensorSpec t;
    t.shape = in;
    t = typed(t);
    t.fill = task.op().input_range(shape, index, types.at(static_cast<size_t>(index)));
    std::vector<uint8_t> bytes(t.bytes());
    runtime::fill_tensor(bytes.data(), t.num_elements(), t.dtype_code, t.dtype_bits, t.fill,
                         runtime::input_seed(seed, index));
    inputs.emplace_back(static_cast<size_t>(t.num_elements()));
    for (int64_t e = 0; e < t.num_elements(); ++e)
      inputs.back()[static_cast<size_t>(e)] =
          static_cast<float>(runtime::element_value(bytes.data(), t.dtype_code, t.dtype_bits, e));
    s.args.push_back(t);
  }
  s.num_inputs = static_cast<int>(s.args.size());
  runtime::TensorSpec out;
  out.shape = task.op().output_shape(shape);
  s.args.push_back(typed(out));
  std::vector<const float*> ptrs;
  ptrs.reserve(inputs.size());
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
      : task_(task),
        opts_(opts),
        db_(db),
        on_progress_(std::move(on_progress)),
        start_(Clock::now()),
        flops_(static_cast<double>(task.op().flops(task.workload().shape))),
        fastest_(static_cast<size_t>(std::max(0, 3 * opts.confirm_top))) {
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
  TrialResult record_trial(const space::Config& config, Built& built, const Measured& m, Clock::time_point asked,
                           Clock::time_point answered);
  void count_trial(const db::Measurement& rec, bool ok, double gflops);
  void report(const std::string& outcome, double gflops);
  void measure_fastest_again();
  bool measure_again(Measurer& confirmer, db::Measurement& rec);
  Built built_again(int64_t config_index);
  void adopt_db_best();
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
  FastestLibraries fastest_;
  runtime::WorkloadSetup setup_;  // inputs and reference output, made once
  std::unique_ptr<Workbench> workbench_;
  TrialTimes times_;
};

// Every trial, measured now or replayed, counts the same way.
void TuneRun::count_trial(const db::Measurement& rec, bool ok, double gflops) {
  if (ok) ok_trials_.emplace_back(gflops, rec);
  ++result_.trials;
  (ok ? result_.ok : result_.failed)++;
  if (ok && gflops > result_.best_gflops) {
    result_.best_gflops = gflops;
    result_.best = rec;
  }
  if (ok && rec.config_index == task_.space().default_config().index()) result_.default_s = rec.mean_s();
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

// The builder and the measurer (workbench.h), and the reference every measurement checks against.
void TuneRun::wire() {
  const auto wire_start = Clock::now();
  workbench_ = std::make_unique<Workbench>(opts_);
  result_.timing_isolation = workbench_->timing_isolation();
  setup_ = make_workload_setup(task_, opts_.seed);
  workbench_->measurer().setup(setup_);
  result_.spent.start += seconds_since(wire_start);
}

// The loop: the tuner proposes a batch, the batch is built and measured, the tuner learns.
void TuneRun::search() {
  while (step(std::max(opts_.batch, workbench_->measurer().capacity()))) {
  }
}

// One batch of at most `max_batch` candidates; false when there was nothing left to do.
bool TuneRun::step(int max_batch) {
  if (tuner_->done() || stop_requested()) {
    result_.stopped = stop_requested();
    return false;
  }
  const auto search_start = Clock::now();
  times_.start_batch(search_start);
  std::vector<space::Config> batch = tuner_->next_batch(std::max(1, max_batch));
  times_.add_search(search_start);
  if (batch.empty()) return false;
  run_batch(batch);
  if (own_job_) record_job_state("running");
  result_.stopped = stop_requested();
  return !result_.stopped;
}

// The batch through the pipeline (candidate_pipeline.h), each trial recorded as it is measured, then
// the tuner learns from the batch.
void TuneRun::run_batch(const std::vector<space::Config>& batch) {
  CandidatePipeline pipeline(task_, batch, workbench_->builder(), workbench_->measurer(), opts_.measure, opts_.stop);
  std::vector<TrialResult> results;
  for (size_t i = 0; i < batch.size(); ++i) {
    pipeline.send_through(i, result_.spent.build_wait);
    if (i >= pipeline.sent()) break;  // stopped: nothing more was sent
    const auto asked = Clock::now();
    Measured m = pipeline.take_measurement(i);
    const auto answered = Clock::now();
    if (m.cancelled) continue;
    results.push_back(record_trial(batch[i], pipeline.built(i), m, asked, answered));
  }
  pipeline.wait_for_measurements();
  const auto update_start = Clock::now();
  tuner_->update(results);
  times_.add_search(update_start);
}

// A measured candidate: recorded in the db, timed, counted, reported; what the tuner learns from it.
TrialResult TuneRun::record_trial(const space::Config& config, Built& built, const Measured& m, Clock::time_point asked,
                                  Clock::time_point answered) {
  db::Measurement rec = make_record(task_, opts_, config, built, m, job_id_);
  if (db_) db_->record(rec);
  times_.add_trial(m, built, asked, answered, Clock::now(), result_.spent);
  const bool ok = m.result.status == runtime::MeasureStatus::Ok && !m.result.costs.empty();
  // The mean over repeats, as the database ranks configs by it: `tunefarm best` and this job
  // must agree on which config won.
  const double gflops = ok ? flops_ / rec.mean_s() * 1e-9 : 0;
  count_trial(rec, ok, gflops);
  if (ok) fastest_.offer(config.index(), gflops, std::move(built.lib));
  report(ok ? "ok" : db::outcome_name(rec.outcome), gflops);
  return {config.index(), ok, gflops};
}

// A job's best is the maximum of many noisy measurements, and a kernel's speed also varies from
// process to process with the physical layout of its buffers; so the fastest few are measured
// again and ranked on both measurements.
void TuneRun::confirm_best() {
  if (result_.stopped || opts_.confirm_top <= 0 || ok_trials_.size() < 2) return;
  struct AddTime {
    double& to;
    Clock::time_point from;
    ~AddTime() { to += seconds_since(from); }
  } add_time{result_.spent.confirm, Clock::now()};
  measure_fastest_again();
  adopt_db_best();
}

// On this host in a fresh worker process (else by the job's measurer), the fastest few, more of
// them while an unconfirmed one still looks faster than the best confirmed; the best of those
// becomes the job's.
void TuneRun::measure_fastest_again() {
  std::unique_ptr<Measurer> fresh = workbench_->fresh_local_measurer(setup_);
  Measurer& confirmer = fresh ? *fresh : workbench_->measurer();
  std::stable_sort(ok_trials_.begin(), ok_trials_.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  const size_t most = std::min(ok_trials_.size(), static_cast<size_t>(3 * opts_.confirm_top));
  double best = 0;
  const db::Measurement* winner = nullptr;
  for (size_t i = 0; i < most && !stop_requested(); ++i) {
    if (i >= static_cast<size_t>(opts_.confirm_top) && ok_trials_[i].first <= best) break;
    db::Measurement& rec = ok_trials_[i].second;
    if (!measure_again(confirmer, rec)) continue;
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
}

// The second measurement's timings appended to the record and to its row in the db; false when
// there is none (the build failed, the job was cancelled, the kernel did not run).
bool TuneRun::measure_again(Measurer& confirmer, db::Measurement& rec) {
  const Built b = built_again(rec.config_index);
  if (!b.error.empty()) return false;
  Measured m = confirmer.measure(b.lib.bytes, b.lib.entry_symbol, opts_.measure).get();
  if (m.cancelled || m.result.status != runtime::MeasureStatus::Ok || m.result.costs.empty()) return false;
  if (db_ && job_id_) db_->add_repeats(*job_id_, rec, m.result.costs);
  rec.costs.insert(rec.costs.end(), m.result.costs.begin(), m.result.costs.end());
  ++result_.confirmed;
  return true;
}

// A fast trial's library as kept, else the config built again.
Built TuneRun::built_again(int64_t config_index) {
  if (const codegen::SharedLibrary* kept = fastest_.find(config_index)) {
    Built b;
    b.lib = *kept;
    return b;
  }
  return workbench_->builder().build(task_, task_.space().at(config_index)).get();
}

// With a db, the job names the config `tunefarm best` will (the two agree unless the cap on
// measuring again left a faster-looking config unconfirmed).
void TuneRun::adopt_db_best() {
  if (!db_ || !job_id_) return;
  if (auto b = db_->best(task_.workload().op, task_.workload().shape, task_.target().str(), opts_.device_key,
                         opts_.measure.cold_inputs)) {
    if (b->job_id == job_id_) {
      result_.best = *b;
      result_.best_gflops = flops_ / b->mean_s() * 1e-9;
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
  times_.summarize(result_.trials - result_.replayed, result_);
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

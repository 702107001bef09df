// The path of a job of many tasks:
//   1. every task started (a resumed job replays each task's measurements first)
//   2. loop until the budget (or the time limit) is spent: the scheduler picks a task, the task runs
//      one batch
//   3. every task's fastest configs measured again, its cost model saved
#include "tuner/tune_tasks.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "tuner/measurer.h"

namespace tf::tuner {
namespace {

using Clock = std::chrono::steady_clock;

// A call's time inside the model over its time alone. A scale far from 1 is noise more than cache
// (short kernels at two threads do reach 3 to 4), and is clamped.
double in_model_scale(double in_model_s, double alone_s) { return std::clamp(in_model_s / alone_s, 0.5, 4.0); }

double best_seconds(const TuneResult& r) {
  if (!r.best || r.best->mean_s() <= 0) return std::numeric_limits<double>::infinity();
  return r.best->mean_s();
}

class TasksRun {
 public:
  TasksRun(const std::vector<TaskToTune>& tasks, const TuneTasksOptions& o, db::Database* db,
           const std::function<void(const TasksProgress&)>& on_progress)
      : tasks_(tasks),
        o_(o),
        db_(db),
        on_progress_(on_progress),
        scheduler_(o.scheduler, o.scheduler_options),
        start_(Clock::now()) {}

  void start();
  void search();
  TaskTuning& tuning(size_t i);
  void finish();
  TuneTasksResult summary();

 private:
  bool stopped() const { return o_.each.stop && o_.each.stop->load(); }
  bool out_of_time() const {
    return o_.time_limit_s > 0 && std::chrono::duration<double>(Clock::now() - start_).count() >= o_.time_limit_s;
  }
  void note_estimate();
  void note_in_model_scale(size_t task);
  double share_done() const;
  void time_in_model_when_due();
  void report(size_t task, bool replayed);

  const std::vector<TaskToTune>& tasks_;
  const TuneTasksOptions& o_;
  db::Database* db_;
  const std::function<void(const TasksProgress&)>& on_progress_;
  TaskScheduler scheduler_;
  const Clock::time_point start_;
  std::vector<std::unique_ptr<Measurer>> measurers_;
  std::vector<std::unique_ptr<TaskTuning>> tunings_;
  std::vector<TaskProgress> progress_;
  std::vector<bool> timed_in_model_;  // per task: its scale comes from its best config's time in the model
  int checkpoints_done_ = 0;
  int64_t used_ = 0;
  TuneTasksResult result_;
};

// A task's tuning starts when it first gets a batch, so that it transfers from the measurements of
// the tasks of the same op before it (tune_job.h: history of the op on this target). A resumed job
// starts every task at once: each replays what it measured before.
TaskTuning& TasksRun::tuning(size_t i) {
  if (tunings_[i]) return *tunings_[i];
  const TaskToTune& t = tasks_[i];
  TuneOptions opts = o_.each;
  opts.trials = std::max<int64_t>(1, std::min(o_.trials, t.task->space().searchable_size()));
  if (o_.make_measurer) {
    measurers_[i] = o_.make_measurer(*t.task);
    opts.measurer = measurers_[i].get();
  }
  tunings_[i] = std::make_unique<TaskTuning>(*t.task, opts, db_);
  tunings_[i]->start();
  const TuneResult& r = tunings_[i]->result();
  TaskProgress& p = progress_[i];
  if (r.trials > 0) p.after_batch(r.trials, best_seconds(r));
  note_in_model_scale(i);
  p.exhausted = tunings_[i]->exhausted();
  used_ += r.trials;
  return *tunings_[i];
}

void TasksRun::start() {
  measurers_.resize(tasks_.size());
  tunings_.resize(tasks_.size());
  timed_in_model_.assign(tasks_.size(), false);
  for (const TaskToTune& t : tasks_) {
    TaskProgress p;
    p.calls = t.calls;
    p.group = t.group;
    p.in_model_default_s = t.in_model_default_s;
    progress_.push_back(p);
  }
  if (!o_.each.resume) return;
  for (size_t i = 0; i < tasks_.size(); ++i) tuning(i);
  if (used_ > 0) {
    note_estimate();
    report(0, true);
  }
}

void TasksRun::search() {
  const int batch = std::max(1, o_.each.batch);
  while (used_ < o_.trials && !stopped()) {
    if (out_of_time()) {
      result_.out_of_time = true;
      break;
    }
    const auto pick = scheduler_.next(progress_);
    if (!pick) break;
    TaskTuning& task = tuning(*pick);
    const int64_t before = task.result().trials;
    const int64_t size = progress_[*pick].measured_once() ? 1 : batch;
    task.step(static_cast<int>(std::min<int64_t>(size, o_.trials - used_)));
    const TuneResult& r = task.result();
    used_ += r.trials - before;
    TaskProgress& p = progress_[*pick];
    p.after_batch(r.trials, best_seconds(r));
    note_in_model_scale(*pick);
    time_in_model_when_due();
    // A batch that ran nothing (the tuner had nothing left to propose) would be picked forever.
    p.exhausted = task.exhausted() || (r.trials == before && !stopped());
    note_estimate();
    report(*pick, false);
  }
  result_.stopped = stopped();
}

void TasksRun::finish() {
  if (result_.stopped) return;
  for (size_t i = 0; i < tunings_.size() && !stopped(); ++i) {
    if (!tunings_[i]) continue;  // never given a batch
    tunings_[i]->finish();
    // The confirmed best (measured again) is what the estimate should say.
    const TuneResult& r = tunings_[i]->result();
    if (r.trials > 0) progress_[i].history.back().best_s = best_seconds(r);
  }
  note_estimate();
  result_.stopped = stopped();
}

void TasksRun::note_estimate() {
  result_.estimated_s = TaskScheduler::estimated_seconds(progress_, &result_.missing);
  result_.curve.push_back({used_, result_.estimated_s});
}

// Once the default config has been timed alone (a tuner measures it first), the task's calls count
// at the time they take inside the model: the estimate is then the model's latency, not the sum of
// kernels timed one by one. An alternative the default build does not run (a Winograd kernel for a
// direct one) takes the scale of the member of its group that it does run.
void TasksRun::note_in_model_scale(size_t i) {
  if (timed_in_model_[i]) return;
  const double alone = tunings_[i]->result().default_s, in_model = tasks_[i].in_model_default_s;
  if (alone <= 0 || in_model <= 0) return;
  const double scale = in_model_scale(in_model, alone);
  progress_[i].in_model_scale = scale;
  if (tasks_[i].group < 0) return;
  for (size_t j = 0; j < tasks_.size(); ++j) {
    if (tasks_[j].group == tasks_[i].group && tasks_[j].in_model_default_s <= 0 && !timed_in_model_[j])
      progress_[j].in_model_scale = scale;
  }
}

double TasksRun::share_done() const {
  double share = static_cast<double>(used_) / static_cast<double>(std::max<int64_t>(1, o_.trials));
  if (o_.time_limit_s > 0)
    share = std::max(share, std::chrono::duration<double>(Clock::now() - start_).count() / o_.time_limit_s);
  return share;
}

// The configs that won alone are timed in the model they are for; from then on each of those tasks
// counts at its best config's scale there rather than the default config's. A task whose best
// changes after the last timing keeps the scale of the config it replaced.
void TasksRun::time_in_model_when_due() {
  const int n = o_.in_model_checkpoints;
  if (!o_.time_in_model || checkpoints_done_ >= n) return;
  if (share_done() < static_cast<double>(checkpoints_done_ + 1) / (n + 1)) return;
  while (checkpoints_done_ < n && share_done() >= static_cast<double>(checkpoints_done_ + 1) / (n + 1))
    ++checkpoints_done_;
  const Clock::time_point begin = Clock::now();
  const InModelTimes t = o_.time_in_model();
  result_.in_model_timing_s += std::chrono::duration<double>(Clock::now() - begin).count();
  for (size_t i = 0; i < tasks_.size() && i < t.in_model_s.size() && i < t.alone_s.size(); ++i) {
    if (t.in_model_s[i] <= 0 || t.alone_s[i] <= 0) continue;
    progress_[i].in_model_scale = in_model_scale(t.in_model_s[i], t.alone_s[i]);
    timed_in_model_[i] = true;
  }
  result_.other_nodes_s = t.other_s;
  ++result_.in_model_timings;
}

void TasksRun::report(size_t task, bool replayed) {
  if (!on_progress_) return;
  TasksProgress p;
  p.trials = used_;
  p.budget = o_.trials;
  p.task = task;
  p.tasks = progress_;
  p.estimated_s = result_.estimated_s;
  p.missing = result_.missing;
  p.elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
  p.replayed = replayed;
  p.other_nodes_s = result_.other_nodes_s;
  on_progress_(p);
}

TuneTasksResult TasksRun::summary() {
  for (size_t i = 0; i < tunings_.size(); ++i) {
    auto& t = tunings_[i];
    result_.in_model_scale.push_back(progress_[i].in_model_scale);
    result_.tasks.push_back(t ? t->summary() : TuneResult{});
    result_.spent += result_.tasks.back().spent;
  }
  result_.trials = used_;
  result_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  return result_;
}

}  // namespace

TuneTasksResult tune_tasks(const std::vector<TaskToTune>& tasks, const TuneTasksOptions& options, db::Database* db,
                           const std::function<void(const TasksProgress&)>& on_progress) {
  TasksRun run(tasks, options, db, on_progress);
  run.start();
  run.search();
  run.finish();
  return run.summary();
}

}  // namespace tf::tuner

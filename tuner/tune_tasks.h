// A job of many tasks with one budget: a model's distinct kernels tuned together. Each task is
// tuned as tune() tunes one (tune_job.h's TaskTuning), a batch at a time; the task scheduler
// (task_scheduler.h) says which task the next batch goes to. Locally and in the tracker alike.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "db/database.h"
#include "tuner/task_scheduler.h"
#include "tuner/tune_job.h"

namespace tf::tuner {

struct TaskToTune {
  const compiler::Task* task = nullptr;  // outlives the job
  double calls = 1;                      // kernel calls per model run
  int group = -1;                        // tasks of one group >= 0 are alternatives (task_scheduler.h)
  // Seconds per call the default config takes inside a model run (a default build, timed per node);
  // 0: unknown. Against the same config timed alone it gives the task's in-model scale.
  double in_model_default_s = 0;
};

// One model run, built from the database's best configs so far, timed per step (this host): per
// task, a call's seconds inside the run and the seconds the build's config took alone (both 0 when
// the build does not run the task), and the run's time outside the tuned kernels.
struct InModelTimes {
  std::vector<double> in_model_s, alone_s;
  double other_s = 0;
};

struct TuneTasksOptions {
  int64_t trials = 2000;  // for all tasks together
  // No batch starts after this many seconds of the job (0: no limit): the budget a user has in wall
  // time rather than trials. The fastest configs are still measured again afterwards.
  double time_limit_s = 0;
  SchedulerPolicy scheduler = SchedulerPolicy::Gradient;
  SchedulerOptions scheduler_options;
  // Every task's options: tuner, threads, batch, measurement, seed, device key, the job to record
  // under (job_id, resume), stop. `trials` is set per task (the job's budget, capped by its space),
  // `measurer` by make_measurer.
  TuneOptions each;
  // A measurer per task (the fleet's, bound to the task's workload); empty: a worker process on
  // this host per task.
  std::function<std::unique_ptr<Measurer>(const compiler::Task&)> make_measurer;
  // When set, the job times the model with its best configs so far at `in_model_checkpoints` evenly
  // spaced points of the search (by trials or by the time limit, whichever is further on), so each
  // task's calls count at what its best config takes inside the model: a config fastest alone can
  // lose there (its parallel split reads what another core wrote, its kernel is too short to start
  // both threads) and the estimate, and the scheduler's picks, should see that.
  std::function<InModelTimes()> time_in_model;
  int in_model_checkpoints = 3;
};

struct TasksProgress {
  int64_t trials = 0, budget = 0;
  size_t task = 0;                  // the task the last batch went to
  std::vector<TaskProgress> tasks;  // per task: trials, best seconds per call
  double estimated_s = 0;           // sum of calls x best over the tasks with a correct config
  int missing = 0;                  // tasks without one
  double elapsed_s = 0;
  bool replayed = false;      // the first report of a resumed job
  double other_nodes_s = -1;  // as TuneTasksResult::other_nodes_s, so far
};

struct TuneTasksResult {
  std::vector<TuneResult> tasks;
  std::vector<double> in_model_scale;  // per task: what the estimate multiplies its best time by
  // The time outside the tuned kernels at the last in-model timing; < 0 when there was none.
  double other_nodes_s = -1;
  int in_model_timings = 0;
  double in_model_timing_s = 0;  // spent building and timing the model at the checkpoints
  int64_t trials = 0;
  double estimated_s = 0;
  int missing = 0;
  // The estimate after each batch: what the scheduler bought with the trials.
  struct Point {
    int64_t trials = 0;
    double estimated_s = 0;
  };
  std::vector<Point> curve;
  double seconds = 0;
  TimeSpent spent;  // over every task
  bool stopped = false;
  bool out_of_time = false;  // the time limit ended the search before the budget was spent
};

// Runs the job; every measurement goes to `db` under each.job_id when given.
TuneTasksResult tune_tasks(const std::vector<TaskToTune>& tasks, const TuneTasksOptions& options, db::Database* db,
                           const std::function<void(const TasksProgress&)>& on_progress = {});

}  // namespace tf::tuner

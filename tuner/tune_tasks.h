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
};

struct TasksProgress {
  int64_t trials = 0, budget = 0;
  size_t task = 0;                  // the task the last batch went to
  std::vector<TaskProgress> tasks;  // per task: trials, best seconds per call
  double estimated_s = 0;           // sum of calls x best over the tasks with a correct config
  int missing = 0;                  // tasks without one
  double elapsed_s = 0;
  bool replayed = false;  // the first report of a resumed job
};

struct TuneTasksResult {
  std::vector<TuneResult> tasks;
  std::vector<double> in_model_scale;  // per task: what the estimate multiplies its best time by
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

// Where a job of many tasks (a model's distinct kernels) spends its next batch of trials.
//
// A model's latency is the sum over its tasks of calls x the best kernel time found so far. The
// even policy splits the budget evenly (AutoTVM's task after task, interleaved); the gradient
// policy (Ansor, OSDI'20, section 6) gives the next batch to the task whose trials are expected
// to cut that sum most:
//   score_i = calls_i x (alpha x backward_i + (1 - alpha) x forward_i)
//   backward_i = how much task i's best time fell per trial over its last few batches
//   forward_i  = best_i / trials_i, the optimistic rate (a search that halves a kernel's time in
//                its first t trials may halve it again in the next t)
// after a warm-up round that gives every task one batch. A task whose space is spent gets no more.
// A task no model run calls (a layout conversion the graph's layout plan weighs) is measured, not
// tuned: it goes first, once, so a small budget still leaves the plan every cost it compares.
//
// Alternatives: tasks of one group are kernels that can each run the same calls (a 3x3 conv as a
// direct or a Winograd kernel); the model runs the fastest, so the group counts once, at its best
// member's time, and a slower member's score shrinks by (group best / its best)^4: its trials pay
// only if they overtake the leader.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tf::tuner {

enum class SchedulerPolicy { Gradient, Even };

// "gradient" or "even"; throws tf::UsageError naming the choices otherwise.
SchedulerPolicy parse_scheduler_policy(const std::string& name);
const char* scheduler_policy_name(SchedulerPolicy p);

// What the scheduler knows of one task.
struct TaskProgress {
  double calls = 1;  // kernel calls per model run
  // A call's time inside a model run over its time alone (caches hold other nodes' data there, a
  // parallel loop starts cold): the estimate counts calls x scale x best.
  double in_model_scale = 1;
  // A call's time inside the default build (its default config), 0 when that build does not run it:
  // what the estimate counts for a group none of whose members was measured yet.
  double in_model_default_s = 0;
  int group = -1;          // tasks of one group >= 0 are alternatives for the same calls
  int64_t trials = 0;      // spent so far
  bool exhausted = false;  // every config of its space was tried
  // Seconds per call of the best correct config after each batch, with the trials spent by then;
  // infinity until one was correct.
  struct Point {
    int64_t trials = 0;
    double best_s = std::numeric_limits<double>::infinity();
  };
  std::vector<Point> history;

  double weight() const { return calls * in_model_scale; }
  // Measured for the layout plan only: one trial, before any kernel's (TasksRun gives it a batch of 1).
  bool measured_once() const { return calls == 0; }
  double best_s() const { return history.empty() ? std::numeric_limits<double>::infinity() : history.back().best_s; }
  // Records the state after a batch.
  void after_batch(int64_t trials_now, double best_s_now);
};

struct SchedulerOptions {
  double alpha = 0.2;       // weight of the measured (backward) rate against the optimistic one
  int backward_window = 3;  // batches the measured rate looks back over
  // A task with no correct config after this many trials gets no more: its kernel keeps the
  // default config (the build says so) rather than eat the model's budget.
  int64_t give_up_after = 64;
};

class TaskScheduler {
 public:
  explicit TaskScheduler(SchedulerPolicy policy, SchedulerOptions options = {});

  // The task to give the next batch to; nullopt when no task can take one.
  std::optional<size_t> next(const std::vector<TaskProgress>& tasks) const;

  // The estimated time of one model run in the tuned kernels: sum of weight x best over the tasks
  // (and groups, at their fastest member) that have a correct config, and of their time in the
  // default build over those that have none yet; `missing` counts those with neither.
  static double estimated_seconds(const std::vector<TaskProgress>& tasks, int* missing = nullptr);

  // The gradient policy's score of a task of `tasks` (exposed for the progress display and tests).
  double score(const std::vector<TaskProgress>& tasks, size_t i) const;

  SchedulerPolicy policy() const { return policy_; }

 private:
  bool can_take(const TaskProgress& t) const;

  SchedulerPolicy policy_;
  SchedulerOptions options_;
};

}  // namespace tf::tuner

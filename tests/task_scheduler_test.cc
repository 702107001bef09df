// The task scheduler on simulated tasks: each task's best time follows a known curve of its trials,
// so where the trials go and what they buy is exact, with no kernel timed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/args.h"
#include "tuner/task_scheduler.h"

namespace tf::tuner {
namespace {

// A kernel whose best time after t trials is base x (1 - gain x (1 - exp(-t / pace))): tuning can
// remove `gain` of its time, about two thirds of that in its first `pace` trials.
struct SimulatedTask {
  double calls, base_s, gain, pace;
  double best_after(int64_t trials) const {
    return base_s * (1 - gain * (1 - std::exp(-static_cast<double>(trials) / pace)));
  }
};

// A model in which a few kernels dominate, as in a CNN: the big ones have much to gain, the small
// ones little, and one kernel runs many times.
std::vector<SimulatedTask> cnn_like_model() {
  return {
      {1, 4.0e-3, 0.75, 150}, {1, 3.0e-3, 0.7, 120}, {4, 0.4e-3, 0.5, 80},  {1, 0.2e-3, 0.3, 60},
      {1, 0.1e-3, 0.3, 60},   {2, 0.1e-3, 0.2, 40},  {1, 0.05e-3, 0.2, 40}, {1, 0.05e-3, 0.1, 40},
      {1, 0.02e-3, 0.1, 40},  {3, 0.02e-3, 0.1, 40},
  };
}

struct Simulation {
  std::vector<TaskProgress> tasks;
  std::vector<std::pair<int64_t, double>> curve;  // (trials, estimated seconds) after each batch
  std::vector<int64_t> order;                     // the task of each batch
};

Simulation simulate(SchedulerPolicy policy, const std::vector<SimulatedTask>& model, int64_t budget, int64_t batch = 16,
                    std::vector<int64_t> space_sizes = {}) {
  TaskScheduler scheduler(policy);
  Simulation sim;
  for (const auto& t : model) {
    TaskProgress p;
    p.calls = t.calls;
    sim.tasks.push_back(p);
  }
  int64_t used = 0;
  while (used < budget) {
    const auto pick = scheduler.next(sim.tasks);
    if (!pick) break;
    TaskProgress& p = sim.tasks[*pick];
    int64_t n = std::min(p.measured_once() ? 1 : batch, budget - used);  // as TasksRun sizes a batch
    if (!space_sizes.empty()) n = std::min(n, space_sizes[*pick] - p.trials);
    p.after_batch(p.trials + n, model[*pick].best_after(p.trials + n));
    if (!space_sizes.empty() && p.trials >= space_sizes[*pick]) p.exhausted = true;
    used += n;
    sim.order.push_back(static_cast<int64_t>(*pick));
    sim.curve.emplace_back(used, TaskScheduler::estimated_seconds(sim.tasks));
  }
  return sim;
}

TEST(TaskScheduler, EvenSplitsTheBudgetEvenly) {
  const auto sim = simulate(SchedulerPolicy::Even, cnn_like_model(), 1600);
  for (const auto& t : sim.tasks) EXPECT_EQ(t.trials, 160);
}

// Layout conversions (no calls per run, measured for the graph's layout plan) come first, one trial
// each, and never again: under either policy and with a budget too small for every kernel's batch.
TEST(TaskScheduler, ConversionsAreMeasuredOnceBeforeAnyKernel) {
  std::vector<SimulatedTask> model = cnn_like_model();
  model.push_back({0, 0.01e-3, 0, 1});
  model.push_back({0, 0.02e-3, 0, 1});
  for (SchedulerPolicy policy : {SchedulerPolicy::Gradient, SchedulerPolicy::Even}) {
    for (int64_t budget : {40, 1600}) {
      const auto sim = simulate(policy, model, budget);
      SCOPED_TRACE(std::string(scheduler_policy_name(policy)) + ", budget " + std::to_string(budget));
      ASSERT_GE(sim.order.size(), 2u);
      EXPECT_EQ(sim.order[0], 10);
      EXPECT_EQ(sim.order[1], 11);
      EXPECT_EQ(sim.tasks[10].trials, 1);
      EXPECT_EQ(sim.tasks[11].trials, 1);
    }
  }
}

TEST(TaskScheduler, GradientTriesEveryTaskOnceBeforeChoosing) {
  const auto sim = simulate(SchedulerPolicy::Gradient, cnn_like_model(), 1600);
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(sim.order[static_cast<size_t>(i)], i) << "batch " << i;
}

TEST(TaskScheduler, GradientSpendsWhereTheLatencyIs) {
  const auto sim = simulate(SchedulerPolicy::Gradient, cnn_like_model(), 1600);
  // The two kernels that are most of the model's time, with most to gain, get most of the budget;
  // the smallest get little more than their warm-up batch.
  EXPECT_GT(sim.tasks[0].trials + sim.tasks[1].trials, 800);
  EXPECT_LT(sim.tasks[8].trials, 64);
  EXPECT_LT(sim.tasks[9].trials, 64);
  // Every task was tried.
  for (const auto& t : sim.tasks) EXPECT_GE(t.trials, 16);
}

TEST(TaskScheduler, GradientReachesTheEvenSplitsLatencyWithFarFewerTrials) {
  const int64_t budget = 2000;
  const auto even = simulate(SchedulerPolicy::Even, cnn_like_model(), budget);
  const auto gradient = simulate(SchedulerPolicy::Gradient, cnn_like_model(), budget);
  const double even_final = even.curve.back().second;
  int64_t needed = -1;
  for (const auto& [trials, est] : gradient.curve) {
    if (est <= even_final) {
      needed = trials;
      break;
    }
  }
  ASSERT_GT(needed, 0) << "the gradient scheduler never reached the even split's " << even_final * 1e3 << " ms";
  EXPECT_LE(needed, budget * 6 / 10) << "gradient needed " << needed << " trials";
  EXPECT_LT(gradient.curve.back().second, even_final);
}

TEST(TaskScheduler, ATaskWhoseSpaceIsSpentGetsNoMore) {
  std::vector<SimulatedTask> model = {{1, 4e-3, 0.8, 100}, {1, 1e-4, 0.1, 10}};
  const auto sim = simulate(SchedulerPolicy::Gradient, model, 1000, 16, {40, 1000});
  EXPECT_EQ(sim.tasks[0].trials, 40);
  EXPECT_EQ(sim.tasks[1].trials, 960);
  // Everything spent: nothing left to schedule.
  TaskScheduler scheduler(SchedulerPolicy::Gradient);
  std::vector<TaskProgress> spent(2);
  spent[0].exhausted = spent[1].exhausted = true;
  EXPECT_FALSE(scheduler.next(spent).has_value());
}

TEST(TaskScheduler, ATaskWithNoCorrectConfigGoesFirstThenIsGivenUp) {
  TaskScheduler scheduler(SchedulerPolicy::Gradient);
  std::vector<TaskProgress> tasks(2);
  tasks[0].after_batch(16, 1e-3);
  tasks[1].after_batch(16, std::numeric_limits<double>::infinity());
  EXPECT_EQ(scheduler.next(tasks), 1u);
  tasks[1].after_batch(SchedulerOptions{}.give_up_after, std::numeric_limits<double>::infinity());
  EXPECT_EQ(scheduler.next(tasks), 0u);
}

TEST(TaskScheduler, EstimateIsCallsTimesBestAndCountsTheMissing) {
  std::vector<TaskProgress> tasks(3);
  tasks[0].calls = 2;
  tasks[0].after_batch(8, 1e-3);
  tasks[1].after_batch(8, 3e-3);
  int missing = 0;
  EXPECT_DOUBLE_EQ(TaskScheduler::estimated_seconds(tasks, &missing), 5e-3);
  EXPECT_EQ(missing, 1);
}

TEST(TaskScheduler, AlternativesCountOnceAtTheFastestMember) {
  std::vector<TaskProgress> tasks(4);
  for (auto& t : tasks) t.calls = 2;
  tasks[0].group = tasks[1].group = 7;  // one conv's direct and Winograd kernels
  tasks[0].after_batch(16, 3e-3);
  tasks[1].after_batch(16, 2e-3);
  tasks[2].after_batch(16, 1e-3);
  tasks[3].group = 9;  // a group none of whose members has a correct config yet
  int missing = 0;
  EXPECT_DOUBLE_EQ(TaskScheduler::estimated_seconds(tasks, &missing), 2 * 2e-3 + 2 * 1e-3);
  EXPECT_EQ(missing, 1);
}

// A kernel that takes 1.5x longer inside the model than alone (its caches hold other nodes' data)
// counts at that time, in the estimate and in where the trials go; an alternative group counts at
// its leader's scale.
TEST(TaskScheduler, EstimateCountsEachKernelAtItsTimeInsideTheModel) {
  std::vector<TaskProgress> tasks(3);
  tasks[0].after_batch(8, 1e-3);
  tasks[0].in_model_scale = 1.5;
  tasks[1].group = tasks[2].group = 4;
  tasks[1].after_batch(8, 2e-3);
  tasks[1].in_model_scale = 1.2;
  tasks[2].after_batch(8, 3e-3);
  tasks[2].in_model_scale = 0.9;
  EXPECT_DOUBLE_EQ(TaskScheduler::estimated_seconds(tasks), 1.5e-3 + 1.2 * 2e-3);

  TaskScheduler scheduler(SchedulerPolicy::Gradient);
  std::vector<TaskProgress> two(2);
  two[0].after_batch(16, 1e-3);
  two[1].after_batch(16, 1e-3);
  EXPECT_DOUBLE_EQ(scheduler.score(two, 0), scheduler.score(two, 1));
  two[1].in_model_scale = 2;
  EXPECT_DOUBLE_EQ(scheduler.score(two, 1), 2 * scheduler.score(two, 0));
  EXPECT_EQ(scheduler.next(two), 1u);
}

TEST(TaskScheduler, AGroupNotYetMeasuredCountsAtItsTimeInTheDefaultBuild) {
  // A measured task; a group of three alternatives none measured, the default build running the
  // second of them twice per model run at 2 ms; a task neither measured nor in the default build.
  std::vector<TaskProgress> tasks(5);
  tasks[0].after_batch(8, 1e-3);
  tasks[1].group = tasks[2].group = tasks[3].group = 7;
  tasks[1].calls = tasks[2].calls = tasks[3].calls = 2;
  tasks[2].in_model_default_s = 2e-3;
  int missing = 0;
  EXPECT_DOUBLE_EQ(TaskScheduler::estimated_seconds(tasks, &missing), 1e-3 + 2 * 2e-3);
  EXPECT_EQ(missing, 1);
  // Once a member is measured the group counts at its best, whichever member it is.
  tasks[3].after_batch(8, 0.5e-3);
  EXPECT_DOUBLE_EQ(TaskScheduler::estimated_seconds(tasks, &missing), 1e-3 + 2 * 0.5e-3);
  EXPECT_EQ(missing, 1);
}

TEST(TaskScheduler, ASlowerAlternativeGetsFewerTrials) {
  // Two alternatives of one big kernel: the second starts 2x slower and can gain as much; a third,
  // smaller kernel on its own. The leader should get more of the budget than the trailer, and the
  // group's estimate is its leader's.
  const std::vector<SimulatedTask> model = {{1, 4e-3, 0.5, 100}, {1, 8e-3, 0.5, 100}, {1, 1e-3, 0.5, 100}};
  TaskScheduler scheduler(SchedulerPolicy::Gradient);
  std::vector<TaskProgress> tasks(3);
  tasks[0].group = tasks[1].group = 0;
  int64_t used = 0;
  while (used < 1200) {
    const size_t i = *scheduler.next(tasks);
    tasks[i].after_batch(tasks[i].trials + 16, model[i].best_after(tasks[i].trials + 16));
    used += 16;
  }
  EXPECT_GT(tasks[0].trials, 4 * tasks[1].trials);
  EXPECT_GE(tasks[1].trials, 16);  // tried once
  EXPECT_DOUBLE_EQ(TaskScheduler::estimated_seconds(tasks), tasks[0].best_s() + tasks[2].best_s());
}

TEST(TaskScheduler, PoliciesByName) {
  EXPECT_EQ(parse_scheduler_policy("gradient"), SchedulerPolicy::Gradient);
  EXPECT_EQ(parse_scheduler_policy("even"), SchedulerPolicy::Even);
  EXPECT_THROW(parse_scheduler_policy("fair"), UsageError);
}

}  // namespace
}  // namespace tf::tuner

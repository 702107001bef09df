#include "tuner/task_scheduler.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "support/args.h"

namespace tf::tuner {

SchedulerPolicy parse_scheduler_policy(const std::string& name) {
  if (name == "gradient") return SchedulerPolicy::Gradient;
  if (name == "even") return SchedulerPolicy::Even;
  throw UsageError("scheduler '" + name +
                   "': expected gradient (trials where they cut the model's latency most) or even");
}

const char* scheduler_policy_name(SchedulerPolicy p) { return p == SchedulerPolicy::Gradient ? "gradient" : "even"; }

void TaskProgress::after_batch(int64_t trials_now, double best_s_now) {
  trials = trials_now;
  history.push_back({trials_now, best_s_now});
}

TaskScheduler::TaskScheduler(SchedulerPolicy policy, SchedulerOptions options) : policy_(policy), options_(options) {}

bool TaskScheduler::can_take(const TaskProgress& t) const {
  if (t.exhausted || (t.measured_once() && !t.history.empty())) return false;
  return std::isfinite(t.best_s()) || t.trials < options_.give_up_after;
}

namespace {

// The member of task i's group with the fastest best time (i itself when it has no group): the
// kernel a build picks for those calls.
const TaskProgress& group_leader(const std::vector<TaskProgress>& tasks, size_t i) {
  const TaskProgress* leader = &tasks[i];
  if (tasks[i].group < 0) return *leader;
  for (const auto& t : tasks) {
    if (t.group == tasks[i].group && t.best_s() < leader->best_s()) leader = &t;
  }
  return *leader;
}

double group_best_s(const std::vector<TaskProgress>& tasks, size_t i) { return group_leader(tasks, i).best_s(); }

// Seconds per model run of task i's calls in the default build (the member of its group that build
// runs), 0 when unknown.
double default_build_seconds(const std::vector<TaskProgress>& tasks, size_t i) {
  for (const auto& t : tasks) {
    const bool same = tasks[i].group < 0 ? &t == &tasks[i] : t.group == tasks[i].group;
    if (same && t.in_model_default_s > 0) return t.calls * t.in_model_default_s;
  }
  return 0;
}

}  // namespace

double TaskScheduler::score(const std::vector<TaskProgress>& tasks, size_t i) const {
  const TaskProgress& t = tasks[i];
  const double best = t.best_s();
  // No correct config yet: the task's share of the latency is unknown and its kernel would run
  // untuned; it goes first (until give_up_after).
  if (!std::isfinite(best)) return std::numeric_limits<double>::infinity();
  const double forward = best / static_cast<double>(std::max<int64_t>(1, t.trials));
  double backward = 0;
  const auto& h = t.history;
  if (h.size() >= 2) {
    const size_t back = std::min<size_t>(static_cast<size_t>(options_.backward_window), h.size() - 1);
    const TaskProgress::Point& then = h[h.size() - 1 - back];
    const int64_t spent = h.back().trials - then.trials;
    if (std::isfinite(then.best_s) && spent > 0) backward = (then.best_s - best) / static_cast<double>(spent);
  }
  // A trailing alternative's optimistic rate is measured on its own, slower time: at twice the
  // leader's time it gets about an eighth of the leader's trials, at 10% behind two thirds.
  const double behind = std::pow(group_best_s(tasks, i) / best, 4);
  return t.weight() * behind * (options_.alpha * backward + (1 - options_.alpha) * forward);
}

std::optional<size_t> TaskScheduler::next(const std::vector<TaskProgress>& tasks) const {
  std::optional<size_t> pick;
  // Warm-up, and the whole of the even policy: the task that has had the fewest trials (the first
  // of equals), so every task gets a batch in turn.
  auto fewest_trials = [&]() -> std::optional<size_t> {
    std::optional<size_t> p;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (can_take(tasks[i]) && (!p || tasks[i].trials < tasks[*p].trials)) p = i;
    }
    return p;
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].measured_once() && can_take(tasks[i])) return i;
  }
  if (policy_ == SchedulerPolicy::Even) return fewest_trials();
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (can_take(tasks[i]) && tasks[i].history.empty()) return i;
  }
  double best_score = -1;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!can_take(tasks[i])) continue;
    const double s = score(tasks, i);
    if (!pick || s > best_score) pick = i, best_score = s;
  }
  return pick;
}

double TaskScheduler::estimated_seconds(const std::vector<TaskProgress>& tasks, int* missing) {
  double total = 0;
  int none = 0;
  std::set<int> groups_seen;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskProgress& t = tasks[i];
    if (t.group >= 0 && !groups_seen.insert(t.group).second) continue;
    const TaskProgress& leader = group_leader(tasks, i);
    if (std::isfinite(leader.best_s()))
      total += leader.weight() * leader.best_s();
    else if (const double s = default_build_seconds(tasks, i); s > 0)
      total += s;  // not measured yet: as fast as the default build runs it
    else
      ++none;
  }
  if (missing) *missing = none;
  return total;
}

}  // namespace tf::tuner

#include "tuner/trial_times.h"

#include <algorithm>

#include "support/stats.h"

namespace tf::tuner {

double ms_between(TrialTimes::Clock::time_point a, TrialTimes::Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double seconds_since(TrialTimes::Clock::time_point a) {
  return std::chrono::duration<double>(TrialTimes::Clock::now() - a).count();
}

void TrialTimes::add_search(Clock::time_point from) { search_ms_ += ms_between(from, Clock::now()); }

void TrialTimes::add_trial(const Measured& m, const Built& built, Clock::time_point asked, Clock::time_point answered,
                           Clock::time_point recorded, TimeSpent& spent) {
  double timed_ms = 0;
  for (double c : m.result.costs) timed_ms += c * 1000 * std::max(1, m.result.number);
  spent.timed += timed_ms / 1000;
  spent.measuring += std::max(0.0, ms_between(asked, answered) - timed_ms) / 1000;
  spent.record += ms_between(answered, recorded) / 1000;
  worker_overhead_ms_.push_back(std::max(0.0, ms_between(asked, recorded) - timed_ms));
  overhead_ms_.push_back(std::max(0.0, ms_between(trial_start_, recorded) - timed_ms));
  trial_start_ = recorded;
  if (!built.cached && built.error.empty()) build_ms_.push_back(built.build_ms);
}

void TrialTimes::summarize(int64_t measured_here, TuneResult& result) const {
  result.build_ms_median = median(build_ms_);
  result.overhead_ms_median = median(overhead_ms_);
  result.worker_overhead_ms_median = median(worker_overhead_ms_);
  result.search_ms_per_trial = measured_here > 0 ? search_ms_ / static_cast<double>(measured_here) : 0;
  result.spent.search = search_ms_ / 1000;
}

}  // namespace tf::tuner

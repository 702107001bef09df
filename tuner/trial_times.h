// Where a tuning job's time goes, trial by trial: the parts of TimeSpent (tune_job.h) the trials
// add to, the tuner's own time, and the per-trial samples behind TuneResult's medians.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "tuner/builder.h"
#include "tuner/measurer.h"
#include "tuner/tune_job.h"

namespace tf::tuner {

class TrialTimes {
 public:
  using Clock = std::chrono::steady_clock;

  // A batch's first trial includes the tuner proposing it: its wall time counts from there.
  void start_batch(Clock::time_point proposal_start) { trial_start_ = proposal_start; }
  // The tuner proposed a batch, or learnt from one, from `from` until now.
  void add_search(Clock::time_point from);
  // A trial whose measure call ran from `asked` to `answered` and whose db write ended at
  // `recorded`: its timed runs, the rest of the measure call and the write go to `spent`.
  void add_trial(const Measured& m, const Built& built, Clock::time_point asked, Clock::time_point answered,
                 Clock::time_point recorded, TimeSpent& spent);
  // The per-trial medians, and the search time per trial over the `measured_here` trials.
  void summarize(int64_t measured_here, TuneResult& result) const;

 private:
  std::vector<double> build_ms_, overhead_ms_, worker_overhead_ms_;
  double search_ms_ = 0;
  Clock::time_point trial_start_;  // the end of the previous trial: a trial's wall time includes
                                   // waiting for its build and, at a batch's start, for the tuner
};

double ms_between(TrialTimes::Clock::time_point a, TrialTimes::Clock::time_point b);
double seconds_since(TrialTimes::Clock::time_point a);

}  // namespace tf::tuner

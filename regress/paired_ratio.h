// The statistic a regression verdict rests on. Baseline and current kernels are measured in turn
// on one board, so round i gives a pair (baseline_i, current_i) taken moments apart; the speed
// ratio r_i = baseline_i / current_i cancels whatever the machine's speed did meanwhile (a noisy
// neighbour, frequency scaling). The estimate is the median of the r_i, with a distribution-free
// confidence interval from order statistics (the sign test's): timings on shared machines have
// heavy upper tails (an interrupt, a page fault), which a mean and a t-interval would follow and a
// median does not, and no normality is assumed.
#pragma once

#include <string>
#include <vector>

namespace tf::regress {

enum class Verdict { Faster, Unchanged, Slower };
const char* verdict_name(Verdict v);

struct PairedRatio {
  double median = 1;         // speed of current / speed of baseline (> 1: current is faster)
  double low = 1, high = 1;  // confidence interval of the median
  double confidence = 0;     // its actual coverage (order statistics give discrete levels >= asked)
  int rounds = 0;
};

// `baseline_s` and `current_s`: seconds per run, one per round, in round order. Throws
// std::invalid_argument when they differ in length, hold a non-positive time, or are fewer than 6
// (too few for a 95% interval).
PairedRatio paired_speed_ratio(const std::vector<double>& baseline_s, const std::vector<double>& current_s,
                               double confidence = 0.95);

// Slower when the median is below 1 - threshold and the whole interval below 1: the slowdown is
// both large enough to matter and not noise. Faster the other way round; otherwise unchanged.
Verdict decide(const PairedRatio& r, double threshold);

}  // namespace tf::regress

// Order statistics of measurements: timings, latencies, per-trial overheads.
#pragma once

#include <vector>

namespace tf {

// The middle value (the mean of the two middle values of an even count); 0 for none.
double median(std::vector<double> v);
// The value below which a fraction `p` (0..1) of the values lie, nearest rank; 0 for none.
double percentile(std::vector<double> v, double p);
// The geometric mean (how benchmarks average speed ratios: a 2x and a 0.5x cancel); 0 for none or
// when any value is not positive.
double geomean(const std::vector<double>& v);

}  // namespace tf

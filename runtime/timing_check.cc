#include "runtime/timing_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tf::runtime {

std::string timing_problem(const std::vector<double>& costs) {
  if (costs.empty()) return "a successful measurement without timings";
  for (size_t i = 0; i < costs.size(); ++i) {
    const double c = costs[i];
    std::string why;
    if (std::isnan(c)) {
      why = "nan";
    } else if (std::isinf(c)) {
      why = "infinite";
    } else if (c <= 0) {
      why = "not positive";
    } else if (c < kMinRunSeconds) {
      why = "below the floor of 1 ns per run";
    } else {
      continue;
    }
    std::ostringstream s;
    s << "cost " << i + 1 << " of " << costs.size() << " (" << c << " s) is " << why;
    return s.str();
  }
  return "";
}

std::string result_problem(const MeasureResult& r, const MeasureOptions& asked) {
  if (std::string why = timing_problem(r.costs); !why.empty()) return why;
  const size_t repeats = static_cast<size_t>(std::max(1, asked.repeat));
  if (r.costs.size() != repeats) {
    return std::to_string(r.costs.size()) + " timings for " + std::to_string(repeats) + " repeats asked";
  }
  if (r.number < 1 || r.number > kMaxNumber) {
    return "number (runs per timing) " + std::to_string(r.number) + " is out of range (1 to " +
           std::to_string(kMaxNumber) + ")";
  }
  if (asked.number > 0 && r.number != asked.number) {
    return "number (runs per timing) " + std::to_string(r.number) + " where " + std::to_string(asked.number) +
           " was asked";
  }
  return "";
}

std::string speed_problem(double flops, double seconds, double peak_gflops) {
  if (!(flops > 0) || !(seconds > 0) || !(peak_gflops > 0)) return "";
  const double gflops = flops / seconds * 1e-9;
  if (gflops <= kMaxSpeedOverPeak * peak_gflops) return "";
  std::ostringstream s;
  s.precision(4);
  s << seconds << " s per run is " << gflops << " GFLOPS, more than " << kMaxSpeedOverPeak
    << " times the measuring machine's FMA peak of " << peak_gflops << " GFLOPS";
  return s.str();
}

}  // namespace tf::runtime

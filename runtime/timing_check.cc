#include "runtime/timing_check.h"

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

}  // namespace tf::runtime

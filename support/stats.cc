#include "support/stats.h"

#include <algorithm>
#include <cmath>

namespace tf {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  const double upper = v[n / 2];
  if (n % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + n / 2);
  return 0.5 * (lower + upper);
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  const double clamped = std::clamp(p, 0.0, 1.0);
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(clamped * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double log_sum = 0;
  for (double x : v) {
    if (!(x > 0)) return 0;
    log_sum += std::log(x);
  }
  return std::exp(log_sum / static_cast<double>(v.size()));
}

}  // namespace tf

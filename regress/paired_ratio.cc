#include "regress/paired_ratio.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "support/stats.h"

namespace tf::regress {
namespace {

// P(X <= k) for X ~ Binomial(n, 1/2).
double binomial_half_cdf(int n, int k) {
  double term = std::pow(0.5, n), sum = 0;  // C(n, 0) / 2^n
  for (int i = 0; i <= k; ++i) {
    sum += term;
    term = term * (n - i) / (i + 1);
  }
  return sum;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Faster: return "faster";
    case Verdict::Unchanged: return "unchanged";
    case Verdict::Slower: return "slower";
  }
  return "?";
}

PairedRatio paired_speed_ratio(const std::vector<double>& baseline_s, const std::vector<double>& current_s,
                               double confidence) {
  if (baseline_s.size() != current_s.size())
    throw std::invalid_argument("baseline and current timings differ in number of rounds");
  const int n = static_cast<int>(baseline_s.size());
  if (n < 6)
    throw std::invalid_argument("at least 6 paired rounds are needed for a 95% interval, got " + std::to_string(n));
  std::vector<double> r;
  for (int i = 0; i < n; ++i) {
    if (!(baseline_s[i] > 0) || !(current_s[i] > 0))
      throw std::invalid_argument("a timing that is not a positive time");
    r.push_back(baseline_s[i] / current_s[i]);
  }
  std::sort(r.begin(), r.end());
  PairedRatio out;
  out.rounds = n;
  out.median = median(r);
  // The interval [r_(k), r_(n+1-k)] (1-based) covers the median with probability
  // 1 - 2 P(X <= k-1): take the largest k that still covers `confidence`.
  const double alpha = 1 - confidence;
  int k = 1;
  while (k + 1 <= n / 2 && 2 * binomial_half_cdf(n, k) <= alpha) ++k;
  out.low = r[static_cast<size_t>(k - 1)];
  out.high = r[static_cast<size_t>(n - k)];
  out.confidence = 1 - 2 * binomial_half_cdf(n, k - 1);
  return out;
}

Verdict decide(const PairedRatio& r, double threshold) {
  if (r.median < 1 - threshold && r.high < 1) return Verdict::Slower;
  if (r.median > 1 + threshold && r.low > 1) return Verdict::Faster;
  return Verdict::Unchanged;
}

}  // namespace tf::regress

#include "compiler/ops/row_operator.h"

#include <cmath>

namespace tf::ops {

void schedule_after_row_passes(schedule::Schedule& sch, const te::Tensor& y,
                               const std::vector<const RowReduction*>& passes, int64_t lanes, bool parallel) {
  schedule::Stage& st = sch[y];
  // Inside y's row loop, the later passes (which read the earlier ones) attached first: a stage's
  // readers must already sit inside the loop it joins.
  for (auto pass = passes.rbegin(); pass != passes.rend(); ++pass) (*pass)->compute_at(sch, st, st.axis(0));
  auto [c_o, c_i] = st.split(st.axis(1), lanes);
  st.vectorize(c_i);
  (void)c_o;
  if (parallel) st.parallel(st.axis(0));
}

void row_mean_reference(const float* x, int64_t rows, int64_t cols, std::vector<float>* out, std::vector<float>* tol) {
  out->assign(static_cast<size_t>(rows), 0.0f);
  tol->assign(static_cast<size_t>(rows), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0, mag = 0;
    for (int64_t c = 0; c < cols; ++c) {
      sum += x[r * cols + c];
      mag += std::fabs(x[r * cols + c]);
    }
    const double y = sum / static_cast<double>(cols);
    (*out)[r] = static_cast<float>(y);
    (*tol)[r] = static_cast<float>(summation_bound(static_cast<double>(cols)) * mag / cols +
                                   3 * kUnitRoundoff * std::fabs(y) + 1e-37);
  }
}

}  // namespace tf::ops

namespace tf::ops {

void normalize_row_reference(const float* x, int64_t cols, double eps, const float* gamma, int64_t gamma_stride,
                             const float* beta, int64_t beta_stride, float* out, float* tol) {
  const double u = kUnitRoundoff, n = static_cast<double>(cols), gamma_n = summation_bound(n);
  double sum = 0, mag = 0, sq = 0;
  for (int64_t c = 0; c < cols; ++c) sum += x[c], mag += std::fabs(x[c]);
  const double mean = sum / n;
  for (int64_t c = 0; c < cols; ++c) sq += (x[c] - mean) * (x[c] - mean);
  const double inv_std = 1 / std::sqrt(sq / n + eps);
  // The mean is off by gamma_n * mean|x| (plus a rounding); the variance, a sum of squares of
  // differences that carry that error, by about 2 gamma_n relative plus the squared mean error;
  // 1/sqrt halves a relative error and adds its own ulp.
  const double mean_error = gamma_n * mag / n + 2 * u * std::fabs(mean);
  const double inv_std_relative = gamma_n + 4 * u + mean_error * mean_error * inv_std * inv_std;
  for (int64_t c = 0; c < cols; ++c) {
    const double g = gamma[c * gamma_stride], b = beta[c * beta_stride];
    const double centred = x[c] - mean;
    const double y = centred * inv_std * g + b;
    const double centred_error = mean_error + u * (std::fabs(x[c]) + std::fabs(mean));
    const double error = std::fabs(g) * inv_std * (centred_error + std::fabs(centred) * (inv_std_relative + 3 * u)) +
                         u * std::fabs(y) + u * std::fabs(b);
    out[c] = static_cast<float>(y);
    tol[c] = static_cast<float>(2 * error + 1e-37);
  }
}

}  // namespace tf::ops

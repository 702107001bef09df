#include "compiler/ops/row_operator.h"

#include <cmath>

namespace tf::ops {

void schedule_after_row_passes(schedule::Schedule& sch, const te::Tensor& y, const std::vector<const RowReduction*>& passes,
                               int64_t lanes, bool parallel) {
  schedule::Stage& st = sch[y];
  for (const RowReduction* pass : passes) pass->compute_root(sch, parallel);
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
    (*tol)[r] = static_cast<float>(summation_bound(static_cast<double>(cols)) * mag / cols + 3 * kUnitRoundoff * std::fabs(y) + 1e-37);
  }
}

}  // namespace tf::ops

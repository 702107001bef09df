// softmax over the last axis of [rows, cols]: y = exp(x - max) / sum(exp(x - max)): the rows'
// max, then their sums (vectorized row reductions), then the output, exp recomputed rather than
// stored.
#include <cmath>

#include "compiler/ir/math.h"
#include "compiler/ops/row_operator.h"

namespace tf::ops {
namespace {

using ir::Expr;

class Softmax : public RowOperator {
 public:
  std::string name() const override { return "softmax"; }
  std::string description() const override { return "Y[r,c] = exp(X[r,c] - max_c X[r,:]) / sum_c exp(X[r,c] - max)"; }
  int64_t flops(const std::vector<int64_t>& s) const override { return 5 * s[0] * s[1]; }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1]}; }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t rows = s[0], cols = s[1], lanes = std::max(1, t.float32_lanes());
    te::Tensor x = te::placeholder({rows, cols}, ir::DataType::float32(), "X");
    RowReduction max_r(ir::ReduceKind::Max, {rows}, cols, lanes, [&](const te::Indices& r, Expr k) { return x(r[0], k); },
                       "row_max");
    const te::Tensor& mx = max_r.result();
    RowReduction sum_r(ir::ReduceKind::Sum, {rows}, cols, lanes,
                       [&](const te::Indices& r, Expr k) { return ir::exp(x(r[0], k) - mx(r[0])); }, "row_sum");
    const te::Tensor& sum = sum_r.result();
    te::Tensor y = te::compute({rows, cols}, [&](const te::Indices& i) {
      return ir::exp(x(i[0], i[1]) - mx(i[0])) * (Expr(1.0f) / sum(i[0]));
    }, "Y", {"r", "c"});
    Scheduled result = make_scheduled({x}, y);
    // The max feeds the sum and the output.
    schedule_after_row_passes(*result.schedule, y, {&max_r, &sum_r}, lanes, cfg.get_bool("parallel"));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t rows = s[0], cols = s[1];
    out->assign(static_cast<size_t>(rows * cols), 0.0f);
    tol->assign(static_cast<size_t>(rows * cols), 0.0f);
    const double u = kUnitRoundoff;
    for (int64_t r = 0; r < rows; ++r) {
      const float* x = in[0] + r * cols;
      double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, static_cast<double>(x[c]));
      for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[c] - mx);
      for (int64_t c = 0; c < cols; ++c) {
        const double y = std::exp(x[c] - mx) / sum;
        // x - max rounds (its error moves exp by |x - max| u), exp is within 3 ulp, the sum within
        // summation_bound of the exact one (all terms positive), the reciprocal and product 2 ulp.
        const double relative = (std::fabs(x[c] - mx) + 3) * u + summation_bound(static_cast<double>(cols)) + 4 * u;
        (*out)[r * cols + c] = static_cast<float>(y);
        (*tol)[r * cols + c] = static_cast<float>(2 * relative * y + 1e-37);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_softmax() { return std::make_unique<Softmax>(); }

}  // namespace tf::ops

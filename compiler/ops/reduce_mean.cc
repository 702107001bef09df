// reduce_mean over the last axis of [rows, cols] (keepdims off): Y[r] = sum_c X[r,c] / cols.
#include <cmath>

#include "compiler/ops/model_operators.h"
#include "compiler/ops/row_reduction.h"

namespace tf::ops {
namespace {

using ir::Expr;

class ReduceMean : public Operator {
 public:
  std::string name() const override { return "reduce_mean"; }
  std::string description() const override { return "Y[r] = mean_c X[r,c]"; }
  std::vector<std::string> shape_names() const override { return {"rows", "cols"}; }
  int64_t flops(const std::vector<int64_t>& s) const override { return s[0] * s[1]; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override { return {{s[0], s[1]}}; }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0]}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return row_config_space(s[0], s[1], t);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t rows = s[0], cols = s[1], lanes = std::max(1, t.float32_lanes());
    Scheduled result;
    te::Tensor x = te::placeholder({rows, cols}, ir::DataType::float32(), "X");
    RowReduction sum_r(ir::ReduceKind::Sum, {rows}, cols, lanes, [&](const te::Indices& r, Expr k) { return x(r[0], k); },
                       "row_sum");
    const te::Tensor& sum = sum_r.result();
    te::Tensor y = te::compute({rows}, [&](const te::Indices& i) { return sum(i[0]) * Expr(static_cast<float>(1.0 / cols)); },
                               "Y", {"r"});
    result.inputs = {x};
    result.outputs = {y};
    result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
    schedule::Stage& st = (*result.schedule)[y];
    sum_r.compute_at(*result.schedule, st, st.axis(0));
    if (cfg.get_bool("parallel")) st.parallel(st.axis(0));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t rows = s[0], cols = s[1];
    out->assign(static_cast<size_t>(rows), 0.0f);
    tol->assign(static_cast<size_t>(rows), 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0, mag = 0;
      for (int64_t c = 0; c < cols; ++c) {
        sum += in[0][r * cols + c];
        mag += std::fabs(in[0][r * cols + c]);
      }
      const double y = sum / static_cast<double>(cols);
      (*out)[r] = static_cast<float>(y);
      (*tol)[r] = static_cast<float>(summation_bound(static_cast<double>(cols)) * mag / cols + 3 * kUnitRoundoff * std::fabs(y) + 1e-37);
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_reduce_mean() { return std::make_unique<ReduceMean>(); }

}  // namespace tf::ops

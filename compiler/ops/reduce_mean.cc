// reduce_mean over the last axis of [rows, cols] (keepdims off): Y[r] = sum_c X[r,c] / cols.
#include "compiler/ops/row_operator.h"

namespace tf::ops {
namespace {

using ir::Expr;

class ReduceMean : public RowOperator {
 public:
  std::string name() const override { return "reduce_mean"; }
  std::string description() const override { return "Y[r] = mean_c X[r,c]"; }
  int64_t flops(const std::vector<int64_t>& s) const override { return s[0] * s[1]; }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0]}; }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t rows = s[0], cols = s[1], lanes = std::max(1, t.float32_lanes());
    te::Tensor x = te::placeholder({rows, cols}, ir::DataType::float32(), "X");
    RowReduction sum_r(ir::ReduceKind::Sum, {rows}, cols, lanes, [&](const te::Indices& r, Expr k) { return x(r[0], k); },
                       "row_sum");
    const te::Tensor& sum = sum_r.result();
    te::Tensor y = te::compute({rows}, [&](const te::Indices& i) { return sum(i[0]) * Expr(static_cast<float>(1.0 / cols)); },
                               "Y", {"r"});
    Scheduled result = make_scheduled({x}, y);
    schedule::Stage& st = (*result.schedule)[y];
    sum_r.compute_at(*result.schedule, st, st.axis(0));
    if (cfg.get_bool("parallel")) st.parallel(st.axis(0));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    row_mean_reference(in[0], s[0], s[1], out, tol);
  }
};

}  // namespace

std::unique_ptr<Operator> make_reduce_mean() { return std::make_unique<ReduceMean>(); }

}  // namespace tf::ops

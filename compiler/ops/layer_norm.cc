// layer_norm over the last axis of [rows, cols]:
//   Y[r,c] = (X[r,c] - mean_r) / sqrt(var_r + eps) * gamma[c] + beta[c]
// with the biased variance computed from the mean in a second pass (no cancellation of E[x^2] -
// E[x]^2). eps is a float but a workload's extents are integers, so it is the extent eps_e12 in
// units of 1e-12 (ONNX's default 1e-5 is eps_e12=10000000, named shapes default to it).
#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/row_operator.h"

namespace tf::ops {
namespace {

using ir::Expr;

double epsilon(int64_t eps_e12) { return static_cast<double>(eps_e12) * 1e-12; }

class LayerNorm : public Operator {
 public:
  std::string name() const override { return "layer_norm"; }
  std::string description() const override {
    return "Y[r,c] = (X[r,c] - mean) / sqrt(var + eps_e12 * 1e-12) * gamma[c] + beta[c], over the last axis";
  }
  std::vector<std::string> shape_names() const override { return {"rows", "cols", "eps_e12"}; }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    std::map<std::string, int64_t> with_default = named;
    with_default.emplace("eps_e12", kDefaultEpsE12);
    return Operator::shape_from_named(with_default);
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape({s[0], s[1]});  // names by position: rows, cols
    // An epsilon up to 1 is up to 1e12 units, beyond the default extent limit.
    if (s[2] < 1) throw CompileError("op 'layer_norm': extent eps_e12 = " + std::to_string(s[2]) + " must be positive");
    if (epsilon(s[2]) > 1) {
      throw CompileError("op 'layer_norm': extent eps_e12 = " + std::to_string(s[2]) +
                         " is an epsilon above 1 (units of 1e-12)");
    }
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    return "rows=" + std::to_string(s[0]) + ",cols=" + std::to_string(s[1]) + ",eps_e12=" + std::to_string(s[2]);
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return 8 * s[0] * s[1]; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1]}, {s[1]}, {s[1]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1]}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return row_config_space(s[0], s[1], t);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t rows = s[0], cols = s[1], lanes = std::max(1, t.float32_lanes());
    const Expr inv_cols(static_cast<float>(1.0 / cols));
    te::Tensor x = te::placeholder({rows, cols}, ir::DataType::float32(), "X");
    te::Tensor gamma = te::placeholder({cols}, ir::DataType::float32(), "gamma");
    te::Tensor beta = te::placeholder({cols}, ir::DataType::float32(), "beta");
    RowReduction sum_r(
        ir::ReduceKind::Sum, {rows}, cols, lanes, [&](const te::Indices& r, Expr k) { return x(r[0], k); }, "row_sum");
    const te::Tensor& sum = sum_r.result();
    RowReduction sq_r(
        ir::ReduceKind::Sum, {rows}, cols, lanes,
        [&](const te::Indices& r, Expr k) {
          Expr d = x(r[0], k) - sum(r[0]) * inv_cols;
          return d * d;
        },
        "row_sq");
    const te::Tensor& sq = sq_r.result();
    te::Tensor y = te::compute({rows, cols},
                               [&](const te::Indices& i) {
                                 Expr inv_std =
                                     ir::rsqrt(sq(i[0]) * inv_cols + Expr(static_cast<float>(epsilon(s[2]))));
                                 return (x(i[0], i[1]) - sum(i[0]) * inv_cols) * inv_std * gamma(i[1]) + beta(i[1]);
                               },
                               "Y", {"r", "c"});
    Scheduled result = make_scheduled({x, gamma, beta}, y);
    // The mean feeds the variance and the output.
    schedule_after_row_passes(*result.schedule, y, {&sum_r, &sq_r}, lanes, cfg.get_bool("parallel"));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t rows = s[0], cols = s[1];
    out->assign(static_cast<size_t>(rows * cols), 0.0f);
    tol->assign(static_cast<size_t>(rows * cols), 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      normalize_row_reference(in[0] + r * cols, cols, static_cast<float>(epsilon(s[2])), in[1], 1, in[2], 1,
                              out->data() + r * cols, tol->data() + r * cols);
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_layer_norm() { return std::make_unique<LayerNorm>(); }

}  // namespace tf::ops

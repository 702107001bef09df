// argmax and argmin over the middle axis of [rows, cols, inner]: Y[r, 0, i] = the index along the
// axis of the first (last = 0) or last (last = 1, ONNX's select_last_index) max / min. Two passes:
// the extreme value, then the least (greatest) index where x equals it.
//
// The indices are written as float32 (exact up to 2^24): every value of a compiled model is
// float32 today (runtime/model), and a kernel output of another type has no value to land in.
#include <cmath>

#include "compiler/error.h"
#include "compiler/ops/axis_reduction.h"
#include "compiler/ops/axis_shape.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {
namespace {

using ir::Expr;

class ArgExtreme : public AxisOperator {
 public:
  explicit ArgExtreme(bool max) : AxisOperator({{"last", 0}}), max_(max) {}
  std::string name() const override { return max_ ? "argmax" : "argmin"; }
  std::string description() const override {
    return std::string("Y[r,0,i] = index of the first (last=1: last) ") + (max_ ? "max" : "min") +
           " of X[r,:,i], as float32";
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape({s[0], s[1], s[2]});
    if (s[3] != 0 && s[3] != 1)
      throw CompileError("op '" + name() + "': extent last = " + std::to_string(s[3]) +
                         " must be 0 (first index) or 1 (last index)");
    if (s[1] > (int64_t{1} << 24))
      throw CompileError("op '" + name() + "': extent cols = " + std::to_string(s[1]) +
                         " is above 2^24 (float32 indices)");
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return 2 * s[0] * s[1] * s[2]; }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], 1, s[2]}; }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t rows = s[0], cols = s[1], inner = s[2], lanes = std::max(1, t.float32_lanes());
    const bool last = s[3] == 1;
    te::Tensor x = te::placeholder({rows, cols, inner}, ir::DataType::float32(), "X");
    AxisReduction ext_r(
        max_ ? ir::ReduceKind::Max : ir::ReduceKind::Min, rows, cols, inner, lanes,
        [&](Expr r, Expr k, Expr i) { return x(r, k, i); }, max_ ? "max" : "min");
    const te::Tensor& ext = ext_r.result();
    AxisReduction idx_r(
        last ? ir::ReduceKind::Max : ir::ReduceKind::Min, rows, cols, inner, lanes,
        [&](Expr r, Expr k, Expr i) {
          const Expr at = ir::make_binary(ir::BinaryOp::EQ, x(r, k, i), ext(r, i));
          return ir::make_select(at, ir::make_cast(ir::DataType::float32(), k),
                                 Expr(last ? -1.0f : static_cast<float>(cols)));
        },
        "index");
    const te::Tensor& idx = idx_r.result();
    te::Tensor y =
        te::compute({rows, 1, inner}, [&](const te::Indices& j) { return idx(j[0], j[2]); }, "Y", {"r", "c", "i"});
    Scheduled result = make_scheduled({x}, y);
    const bool parallel = cfg.get_bool("parallel");
    ext_r.compute_root(*result.schedule, parallel);
    idx_r.compute_root(*result.schedule, parallel);
    schedule_axis_output(*result.schedule, y, lanes, false);
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t rows = s[0], cols = s[1], inner = s[2];
    const bool last = s[3] == 1;
    out->assign(static_cast<size_t>(rows * inner), 0.0f);
    tol->assign(out->size(), 0.0f);  // an index is exact
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t best = 0;
        for (int64_t c = 1; c < cols; ++c) {
          const float v = in[0][(r * cols + c) * inner + i], b = in[0][(r * cols + best) * inner + i];
          const bool better = max_ ? (v > b || (last && v == b)) : (v < b || (last && v == b));
          if (better) best = c;
        }
        (*out)[r * inner + i] = static_cast<float>(best);
      }
    }
  }

 private:
  bool max_;
};

}  // namespace

std::unique_ptr<Operator> make_argmax() { return std::make_unique<ArgExtreme>(true); }
std::unique_ptr<Operator> make_argmin() { return std::make_unique<ArgExtreme>(false); }

}  // namespace tf::ops

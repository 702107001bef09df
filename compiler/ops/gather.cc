// gather and gather_elements along the middle axis of [rows, cols, inner] (any axis once the axes
// before and after it are flattened), the indices a float32 input holding integers (exact up to
// 2^24; every value of a compiled model is float32 today, and a model's Gather indices are
// constants the graph passes as an argument, so the kernel does not depend on their values):
//   gather           Y[r, j, i] = X[r, idx[j], i]        idx [count] (ONNX's indices, flattened)
//   gather_elements  Y[r, j, i] = X[r, idx[r, j, i], i]  idx [rows, count, inner]
// A negative index counts from the end (ONNX); one still outside [0, cols) reads the nearest edge
// rather than memory outside X (ONNX leaves it undefined).
#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ops/axis_reduction.h"
#include "compiler/ops/axis_shape.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {
namespace {

using ir::Expr;

int64_t normalized(float v, int64_t cols) {
  int64_t i = static_cast<int64_t>(v);
  if (i < 0) i += cols;
  return std::clamp<int64_t>(i, 0, cols - 1);
}

class Gather : public AxisOperator {
 public:
  explicit Gather(bool elements) : AxisOperator({{"count", -1}}), elements_(elements) {}
  std::string name() const override { return elements_ ? "gather_elements" : "gather"; }
  std::string description() const override {
    return elements_ ? "Y[r,j,i] = X[r, idx[r,j,i], i] (idx: float32 integers, negative from the end)"
                     : "Y[r,j,i] = X[r, idx[j], i] (idx: float32 integers, negative from the end)";
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape(s);
    if (s[1] > (int64_t{1} << 24))
      throw CompileError("op '" + name() + "': extent cols = " + std::to_string(s[1]) +
                         " is above 2^24 (float32 indices)");
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return s[0] * s[3] * s[2]; }  // elements written
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    if (elements_) return {{s[0], s[1], s[2]}, {s[0], s[3], s[2]}};
    return {{s[0], s[1], s[2]}, {s[3]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[3], s[2]}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return row_config_space(s[0], s[3] * s[2], t);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t rows = s[0], cols = s[1], inner = s[2], lanes = std::max(1, t.float32_lanes());
    te::Tensor x = te::placeholder({rows, cols, inner}, ir::DataType::float32(), "X");
    te::Tensor idx = te::placeholder(input_shapes(s)[1], ir::DataType::float32(), "indices");
    te::Tensor y = te::compute(output_shape(s),
                               [&](const te::Indices& j) {
                                 const Expr v = ir::make_cast(ir::DataType::int64(),
                                                              elements_ ? idx(j[0], j[1], j[2]) : idx(j[1]));
                                 const Expr i = ir::make_select(v < Expr(int64_t{0}), v + cols, v);
                                 return x(j[0], ir::min(ir::max(i, Expr(int64_t{0})), Expr(cols - 1)), j[2]);
                               },
                               "Y", {"r", "j", "i"});
    Scheduled result = make_scheduled({x, idx}, y);
    schedule_axis_output(*result.schedule, y, lanes, cfg.get_bool("parallel"));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t rows = s[0], cols = s[1], inner = s[2], count = s[3];
    out->assign(static_cast<size_t>(rows * count * inner), 0.0f);
    tol->assign(out->size(), 0.0f);  // a copy is exact
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < count; ++j) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t o = (r * count + j) * inner + i;
          const int64_t c = normalized(elements_ ? in[1][o] : in[1][j], cols);
          (*out)[o] = in[0][(r * cols + c) * inner + i];
        }
      }
    }
  }

 private:
  bool elements_;
};

}  // namespace

std::unique_ptr<Operator> make_gather() { return std::make_unique<Gather>(false); }
std::unique_ptr<Operator> make_gather_elements() { return std::make_unique<Gather>(true); }

}  // namespace tf::ops

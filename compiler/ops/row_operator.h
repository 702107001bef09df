// What the row-wise ops on [rows, cols] share (softmax, layer_norm, reduce_mean, and
// global_avg_pool2d whose rows are planes): the shape and its config space, the schedule of an
// output computed after row passes, and the reference of a row mean.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/model_operators.h"
#include "compiler/ops/row_reduction.h"

namespace tf::ops {

// An op on one input X[rows, cols].
class RowOperator : public Operator {
 public:
  std::vector<std::string> shape_names() const override { return {"rows", "cols"}; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override { return {{s[0], s[1]}}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return row_config_space(s[0], s[1], t);
  }
};

// Schedules the output y[rows, cols] after its row reductions, each a pass of its own over all
// rows (in the order given: a reduction read by another and by y cannot sit inside one's loop),
// y's columns vectorized; the rows in parallel when `parallel`.
void schedule_after_row_passes(schedule::Schedule& sch, const te::Tensor& y, const std::vector<const RowReduction*>& passes,
                               int64_t lanes, bool parallel);

// The mean of each row of x[rows, cols] in double precision, and the error a float32 kernel may
// make (any summation order).
void row_mean_reference(const float* x, int64_t rows, int64_t cols, std::vector<float>* out, std::vector<float>* tol);

}  // namespace tf::ops

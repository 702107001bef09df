// A reduction over the middle axis of [rows, cols, inner] (softmax, argmax, instance_norm...: any
// axis of a tensor once the axes before and after it are flattened). With inner = 1 the rows are
// reduced by the vectorized row reduction; otherwise the lanes run over inner (contiguous) and the
// reduction over cols runs outside them, so a middle axis needs no transpose.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/row_reduction.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"

namespace tf::ops {

class AxisReduction {
 public:
  // Reduces source(row, k, i) over k in [0, cols) into result()[rows, inner].
  AxisReduction(ir::ReduceKind kind, int64_t rows, int64_t cols, int64_t inner, int64_t lanes,
                const std::function<ir::Expr(ir::Expr row, ir::Expr k, ir::Expr i)>& source, const std::string& name);

  const te::Tensor& result() const { return result_; }
  // A stage of its own before its consumers, the rows in parallel or not.
  void compute_root(schedule::Schedule& s, bool parallel) const;
  // Along the last axis (inner = 1) only: computed inside `consumer`'s loop `row_axis`, one row at
  // a time while it is in cache (the consumer must be its only reader).
  bool along_rows() const { return row_.has_value(); }
  void compute_at(schedule::Schedule& s, schedule::Stage& consumer, const ir::IterVar& row_axis) const;

 private:
  std::optional<RowReduction> row_;
  te::Tensor result_;
  int64_t rows_, lanes_;
};

// Schedules y[rows, cols, inner] (or [rows, 1, inner]): the innermost axis of extent above 1
// vectorized, rows in parallel.
void schedule_axis_output(schedule::Schedule& s, const te::Tensor& y, int64_t lanes, bool parallel);

}  // namespace tf::ops

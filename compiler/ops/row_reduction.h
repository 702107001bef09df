// A reduction along the last axis that vectorizes: for each row, lanes-wide partial results over
// the whole vectors of the row (one vector accumulator, contiguous loads), then the lanes combined
// as a balanced tree and the ragged tail reduced after them. softmax, layer_norm, reduce_mean and global_avg_pool2d
// reduce their rows this way.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"

namespace tf::ops {

class RowReduction {
 public:
  // Reduces source(row, k) over k in [0, cols) for every row of the extents `rows`; lanes is the
  // vector width (1: a plain serial reduction).
  RowReduction(ir::ReduceKind kind, const std::vector<int64_t>& rows, int64_t cols, int64_t lanes,
               const std::function<ir::Expr(const te::Indices& row, ir::Expr k)>& source, const std::string& name);

  // The reduced tensor, shaped `rows`.
  const te::Tensor& result() const { return result_; }
  // Computes it inside `consumer`'s loop `row_axis` (a loop that fixes every row index the
  // consumer reads), vectorizing the partial results. Every other reader of the result must
  // already be computed inside that loop.
  void compute_at(schedule::Schedule& s, schedule::Stage& consumer, const ir::IterVar& row_axis) const;
  // Computes it as a stage of its own, before its consumers (any number), the rows in parallel or not.
  void compute_root(schedule::Schedule& s, bool parallel) const;

 private:
  void schedule_partial(schedule::Schedule& s) const;

  te::Tensor partial_;  // [rows..., lanes], or none when the row is shorter than a vector
  te::Tensor tail_;     // [rows...]: the elements past the whole vectors, when there are any
  te::Tensor result_;
  size_t row_rank_;
};

}  // namespace tf::ops

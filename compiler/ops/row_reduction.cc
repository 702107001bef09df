#include "compiler/ops/row_reduction.h"

namespace tf::ops {
namespace {

using ir::Expr;

Expr reduce(ir::ReduceKind kind, Expr source, std::vector<ir::IterVar> axes) {
  return ir::make_reduce(kind, std::move(source), std::move(axes));
}

}  // namespace

RowReduction::RowReduction(ir::ReduceKind kind, const std::vector<int64_t>& rows, int64_t cols, int64_t lanes,
                           const std::function<Expr(const te::Indices&, Expr)>& source, const std::string& name)
    : row_rank_(rows.size()) {
  auto row_of = [&](const te::Indices& i) { return te::Indices(i.begin(), i.begin() + static_cast<long>(row_rank_)); };
  const int64_t whole = lanes > 1 ? cols / lanes : 0;
  if (whole == 0) {
    ir::IterVar k = te::reduce_axis(cols, "k");
    result_ = te::compute(rows, [&](const te::Indices& i) { return reduce(kind, source(i, ir::to_expr(k->var)), {k}); }, name);
    return;
  }
  std::vector<int64_t> partial_shape = rows;
  partial_shape.push_back(lanes);
  ir::IterVar ko = te::reduce_axis(whole, "ko");
  partial_ = te::compute(partial_shape, [&](const te::Indices& i) {
    return reduce(kind, source(row_of(i), ir::to_expr(ko->var) * lanes + i.back()), {ko});
  }, name + ".lanes");
  // The lanes, then the tail past the whole vectors: j < lanes reads a lane, j >= lanes the row.
  // Both sides of the select are in bounds (clamped), so evaluating both is safe.
  const int64_t tail = cols - whole * lanes;
  ir::IterVar j = te::reduce_axis(lanes + tail, "j");
  result_ = te::compute(rows, [&](const te::Indices& i) {
    Expr jv = ir::to_expr(j->var);
    te::Indices lane = i;
    lane.push_back(ir::min(jv, Expr(lanes - 1)));
    if (tail == 0) return reduce(kind, partial_(lane), {j});
    Expr from_row = source(i, ir::max(jv - lanes, Expr(0)) + whole * lanes);
    return reduce(kind, ir::make_select(jv < Expr(lanes), partial_(lane), from_row), {j});
  }, name);
}

void RowReduction::compute_at(schedule::Schedule& s, schedule::Stage& consumer, const ir::IterVar& row_axis) const {
  s[result_].compute_at(consumer, row_axis);
  schedule_partial(s);
}

void RowReduction::compute_root(schedule::Schedule& s, bool parallel) const {
  schedule::Stage& r = s[result_];
  ir::IterVar rows = r.axis(0);
  for (size_t d = 1; d < row_rank_; ++d) rows = r.fuse(rows, r.axis(d));
  if (parallel) r.parallel(rows);
  schedule_partial(s);
}

void RowReduction::schedule_partial(schedule::Schedule& s) const {
  if (!partial_.op()) return;
  schedule::Stage& r = s[result_];
  schedule::Stage& p = s[partial_];
  p.compute_at(r, r.leaf_iter_vars()[r.leaf_iter_vars().size() - 2]);  // the innermost row loop
  // Lanes inside the reduction over whole vectors: one vector accumulator, contiguous loads.
  p.reorder({p.reduce_axis(0), p.axis(row_rank_)});
  p.vectorize(p.axis(row_rank_));
}

}  // namespace tf::ops

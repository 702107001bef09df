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
    result_ = te::compute(
        rows, [&](const te::Indices& i) { return reduce(kind, source(i, ir::to_expr(k->var)), {k}); }, name);
    return;
  }
  std::vector<int64_t> partial_shape = rows;
  partial_shape.push_back(lanes);
  ir::IterVar ko = te::reduce_axis(whole, "ko");
  partial_ = te::compute(
      partial_shape,
      [&](const te::Indices& i) {
        return reduce(kind, source(row_of(i), ir::to_expr(ko->var) * lanes + i.back()), {ko});
      },
      name + ".lanes");
  // The lanes combined as a balanced tree (log2(lanes) dependent steps, not a chain of `lanes`),
  // then the ragged tail past the whole vectors, reduced by a stage of its own.
  auto lanes_tree = [&](const te::Indices& i) {
    std::vector<Expr> level;
    for (int64_t l = 0; l < lanes; ++l) {
      te::Indices lane = i;
      lane.push_back(Expr(l));
      level.push_back(partial_(lane));
    }
    while (level.size() > 1) {
      std::vector<Expr> next;
      for (size_t k = 0; k + 1 < level.size(); k += 2) next.push_back(ir::combine(kind, level[k], level[k + 1]));
      if (level.size() % 2) next.push_back(level.back());
      level = std::move(next);
    }
    return level[0];
  };
  const int64_t tail = cols - whole * lanes;
  if (tail == 0) {
    result_ = te::compute(rows, lanes_tree, name);
    return;
  }
  ir::IterVar t = te::reduce_axis(tail, "tail");
  tail_ = te::compute(
      rows, [&](const te::Indices& i) { return reduce(kind, source(i, ir::to_expr(t->var) + whole * lanes), {t}); },
      name + ".tail");
  result_ = te::compute(
      rows, [&](const te::Indices& i) { return ir::combine(kind, lanes_tree(i), tail_(i)); }, name);
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
  const ir::IterVar innermost_row = r.leaf_iter_vars().back();
  if (tail_.op()) s[tail_].compute_at(r, innermost_row);
  schedule::Stage& p = s[partial_];
  p.compute_at(r, innermost_row);
  // Lanes inside the reduction over whole vectors: one vector accumulator, contiguous loads.
  p.reorder({p.reduce_axis(0), p.axis(row_rank_)});
  p.vectorize(p.axis(row_rank_));
}

}  // namespace tf::ops

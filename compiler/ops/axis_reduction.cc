#include "compiler/ops/axis_reduction.h"

#include "compiler/error.h"

namespace tf::ops {

using ir::Expr;

AxisReduction::AxisReduction(ir::ReduceKind kind, int64_t rows, int64_t cols, int64_t inner, int64_t lanes,
                             const std::function<Expr(Expr, Expr, Expr)>& source, const std::string& name)
    : rows_(rows), lanes_(lanes) {
  if (inner == 1) {
    row_.emplace(
        kind, std::vector<int64_t>{rows, 1}, cols, lanes,
        [&](const te::Indices& r, Expr k) { return source(r[0], k, Expr(0)); }, name);
    result_ = row_->result();
    return;
  }
  ir::IterVar k = te::reduce_axis(cols, "k");
  result_ = te::compute(
      {rows, inner},
      [&](const te::Indices& i) { return ir::make_reduce(kind, source(i[0], ir::to_expr(k->var), i[1]), {k}); }, name,
      {"r", "i"});
}

void AxisReduction::compute_root(schedule::Schedule& s, bool parallel) const {
  if (row_) {
    row_->compute_root(s, parallel);
    return;
  }
  schedule::Stage& st = s[result_];
  auto [io, ii] = st.split(st.axis(1), lanes_);
  st.reorder({st.axis(0), io, st.reduce_axis(0), ii});
  st.vectorize(ii);
  if (parallel) st.parallel(rows_ > 1 ? st.axis(0) : io);
}

void AxisReduction::compute_at(schedule::Schedule& s, schedule::Stage& consumer, const ir::IterVar& row_axis) const {
  if (!row_) throw CompileError("internal error: an axis reduction across inner lanes cannot be computed per row");
  row_->compute_at(s, consumer, row_axis);
}

void schedule_axis_output(schedule::Schedule& s, const te::Tensor& y, int64_t lanes, bool parallel) {
  schedule::Stage& st = s[y];
  const auto& shape = y.shape();
  const size_t last = shape[2] > 1 || shape[1] == 1 ? 2 : 1;
  if (shape[last] > 1) {
    auto [o, i] = st.split(st.axis(last), lanes);
    (void)o;
    st.vectorize(i);
  }
  if (parallel) st.parallel(st.axis(0));
}

}  // namespace tf::ops

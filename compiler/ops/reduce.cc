// ONNX's Reduce* over any set of axes of a tensor of rank <= 6: reduce_sum, reduce_mean,
// reduce_max, reduce_min, reduce_prod, reduce_l1, reduce_l2, reduce_log_sum, reduce_log_sum_exp,
// reduce_sum_square. The shape is rank, d0..d5 (the input's extents) and r0..r5 (1 where the axis
// is reduced): `rank=4,d0=1,d1=64,d2=56,d3=56,r2=1,r3=1`. The output is the input's shape with the
// reduced axes set to 1 (dropping them, keepdims=0, is a view the graph takes).
//
// Adjacent axes of one kind merge (extent-1 axes do not count), so any reduction is an alternation
// of kept and reduced groups, each group read through the flat index of its last axis (contiguous
// in memory). When the innermost group is reduced the rows reduce with the vectorized row
// reduction (the other reduced groups, small by then, after it); when it is kept, the output's
// innermost group is vectorized and the reduction runs outside the lanes (columns).
#include <cmath>
#include <optional>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/ranked_shape.h"
#include "compiler/ops/reduce_kind.h"
#include "compiler/ops/row_reduction.h"

namespace tf::ops {
namespace {

using ir::Expr;

const RankedShape& layout() {
  static const RankedShape r({"rank"}, {}, {{"d", 1, true}, {"r", 0, false}});
  return r;
}

// A run of adjacent axes all kept or all reduced: its extent, and the original axes it spans.
struct Group {
  int64_t extent;
  bool reduced;
  int first, last;  // last = -1: the stand-in kept group of a reduction over every axis
};

class Plan {
 public:
  Plan(const std::vector<int64_t>& dims, const std::vector<int64_t>& reduced) : dims_(dims) {
    for (int k = 0; k < static_cast<int>(dims.size()); ++k) {
      if (dims[k] == 1) continue;
      const bool r = reduced[k] != 0;
      if (!groups_.empty() && groups_.back().reduced == r) {
        groups_.back().extent *= dims[k];
        groups_.back().last = k;
      } else {
        groups_.push_back({dims[k], r, k, k});
      }
    }
    bool any_kept = false;
    for (const Group& g : groups_) any_kept |= !g.reduced, count_ *= g.reduced ? g.extent : 1;
    if (!any_kept) groups_.insert(groups_.begin(), Group{1, false, 0, -1});
    for (size_t g = 0; g < groups_.size(); ++g) (groups_[g].reduced ? reduced_ : kept_).push_back(static_cast<int>(g));
  }

  const std::vector<Group>& groups() const { return groups_; }
  const std::vector<int>& kept() const { return kept_; }
  const std::vector<int>& reduced() const { return reduced_; }
  int64_t count() const { return count_; }  // elements reduced into each output
  bool rows() const { return groups_.back().reduced; }
  std::vector<int64_t> kept_shape() const {
    std::vector<int64_t> s;
    for (int g : kept_) s.push_back(groups_[g].extent);
    return s;
  }
  // x at one index per group, each on its group's last axis (the flat index of the group).
  Expr read(const te::Tensor& x, const std::vector<Expr>& group_index) const {
    te::Indices i(dims_.size(), Expr(0));
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].last >= 0) i[groups_[g].last] = group_index[g];
    }
    return x(i);
  }
  // The kept groups' flat indices from an output index (reduced axes are 0 there).
  std::vector<Expr> kept_index(const te::Indices& out) const {
    std::vector<Expr> idx;
    for (int g : kept_) {
      const Group& gr = groups_[g];
      Expr flat(0);
      for (int k = gr.first; k <= gr.last; ++k) flat = flat * dims_[k] + out[k];
      idx.push_back(gr.last < 0 ? Expr(0) : flat);
    }
    return idx;
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<Group> groups_;
  std::vector<int> kept_, reduced_;
  int64_t count_ = 1;
};

// One reduction over the plan's reduced groups: the source takes one index per group.
struct Reduction {
  te::Tensor result;  // over the kept groups
  std::optional<RowReduction> row;
};

Reduction build(const Plan& p, ir::ReduceKind kind, int64_t lanes,
                const std::function<Expr(const std::vector<Expr>&)>& src, const std::string& name) {
  const auto& groups = p.groups();
  Reduction r;
  if (p.rows()) {
    std::vector<int64_t> row_shape;
    for (size_t g = 0; g + 1 < groups.size(); ++g) row_shape.push_back(groups[g].extent);
    r.row.emplace(
        kind, row_shape, groups.back().extent, lanes,
        [&](const te::Indices& row, Expr k) {
          std::vector<Expr> idx = row;
          idx.push_back(k);
          return src(idx);
        },
        name + ".rows");
    if (p.reduced().size() == 1) {
      r.result = r.row->result();
      return r;
    }
    // The outer reduced groups, over the rows' results.
    const te::Tensor rows = r.row->result();
    std::vector<ir::IterVar> axes;
    for (size_t n = 0; n + 1 < p.reduced().size(); ++n)
      axes.push_back(te::reduce_axis(groups[p.reduced()[n]].extent, "k" + std::to_string(n)));
    r.result = te::compute(
        p.kept_shape(),
        [&](const te::Indices& i) {
          std::vector<Expr> idx(groups.size() - 1);
          for (size_t n = 0; n < p.kept().size(); ++n) idx[p.kept()[n]] = i[n];
          for (size_t n = 0; n + 1 < p.reduced().size(); ++n) idx[p.reduced()[n]] = ir::to_expr(axes[n]->var);
          return ir::make_reduce(kind, rows(idx), axes);
        },
        name);
    return r;
  }
  std::vector<ir::IterVar> axes;
  for (size_t n = 0; n < p.reduced().size(); ++n)
    axes.push_back(te::reduce_axis(groups[p.reduced()[n]].extent, "k" + std::to_string(n)));
  r.result = te::compute(
      p.kept_shape(),
      [&](const te::Indices& i) {
        std::vector<Expr> idx(groups.size());
        for (size_t n = 0; n < p.kept().size(); ++n) idx[p.kept()[n]] = i[n];
        for (size_t n = 0; n < p.reduced().size(); ++n) idx[p.reduced()[n]] = ir::to_expr(axes[n]->var);
        return ir::make_reduce(kind, src(idx), axes);
      },
      name);
  return r;
}

void schedule_reduction(schedule::Schedule& sch, const Plan& p, const Reduction& r, int64_t lanes, bool parallel) {
  if (r.row) {
    r.row->compute_root(sch, parallel);
    return;
  }
  // Columns: the innermost kept group in vector lanes, the reduction outside them.
  schedule::Stage& st = sch[r.result];
  const size_t n = p.kept().size();
  auto [lo, li] = st.split(st.axis(n - 1), lanes);
  std::vector<ir::IterVar> order;
  for (size_t k = 0; k + 1 < n; ++k) order.push_back(st.axis(k));
  order.push_back(lo);
  for (size_t k = 0; k < p.reduced().size(); ++k) order.push_back(st.reduce_axis(k));
  order.push_back(li);
  st.reorder(order);
  st.vectorize(li);
  if (parallel) st.parallel(order.front());
}

class Reduce : public Operator {
 public:
  explicit Reduce(ReduceOp op) : op_(op), info_(reduce_op_info(op)) {}
  std::string name() const override { return info_.name; }
  std::string description() const override {
    return std::string("Y = ") + info_.formula + " over the axes with r<k>=1 of X (rank <= 6; reduced axes kept as 1)";
  }
  std::vector<std::string> shape_names() const override { return layout().names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    // rows=,cols= (the row-wise ops' shape): the last axis of [rows, cols].
    if (!named.count("rank") && named.count("rows") && named.count("cols") && named.size() == 2) {
      return layout().from_named(*this, {{"rank", 2}, {"d0", named.at("rows")}, {"d1", named.at("cols")}, {"r1", 1}});
    }
    return layout().from_named(*this, named);
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    layout().check(*this, s);
    for (int k = 0; k < s[0]; ++k) {
      const int64_t d = layout().at(s, 0, k), r = layout().at(s, 1, k);
      if (d <= 0 || d > (int64_t{1} << 31)) fail_extent(*this, layout().field(0, k), d, "must be positive and sane");
      if (r != 0 && r != 1) fail_extent(*this, layout().field(1, k), r, "must be 0 (kept) or 1 (reduced)");
    }
  }
  std::string shape_text(const std::vector<int64_t>& s) const override { return layout().text(s); }
  int64_t flops(const std::vector<int64_t>& s) const override { return element_count(layout().group(s, 0)); }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {layout().group(s, 0)};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    std::vector<int64_t> out = layout().group(s, 0);
    for (int k = 0; k < s[0]; ++k) {
      if (layout().at(s, 1, k)) out[k] = 1;
    }
    return out;
  }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    const Plan p(layout().group(s, 0), layout().group(s, 1));
    const int64_t outputs = element_count(p.kept_shape());
    space::ConfigSpace cs;
    add_parallel_knob(cs, outputs, flops(s), "run the outermost kept axis on the thread pool");
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t lanes = std::max(1, t.float32_lanes());
    const bool parallel = cfg.get_bool("parallel");
    const Plan p(layout().group(s, 0), layout().group(s, 1));
    te::Tensor x = te::placeholder(input_shapes(s)[0], ir::DataType::float32(), "X");
    auto pre = [&](Expr v) { return reduce_op_pre(op_, v); };
    std::vector<Reduction> passes;
    if (op_ == ReduceOp::LogSumExp) {
      passes.push_back(build(
          p, ir::ReduceKind::Max, lanes, [&](const std::vector<Expr>& i) { return p.read(x, i); }, "max"));
      const te::Tensor mx = passes.back().result;
      passes.push_back(build(
          p, ir::ReduceKind::Sum, lanes,
          [&](const std::vector<Expr>& i) {
            std::vector<Expr> kept;
            for (int g : p.kept()) kept.push_back(i[g]);
            return ir::exp(p.read(x, i) - mx(kept));
          },
          "sum"));
    } else if (!p.reduced().empty()) {
      passes.push_back(build(
          p, reduce_op_combiner(op_), lanes, [&](const std::vector<Expr>& i) { return pre(p.read(x, i)); }, "acc"));
    }
    te::Tensor y = te::compute(
        output_shape(s),
        [&](const te::Indices& i) {
          const std::vector<Expr> kept = p.kept_index(i);
          if (passes.empty()) return reduce_op_post(op_, pre(x(i)), Expr(), 1);
          const Expr m = op_ == ReduceOp::LogSumExp ? passes[0].result(kept) : Expr();
          return reduce_op_post(op_, passes.back().result(kept), m, p.count());
        },
        "Y");
    Scheduled result = make_scheduled({x}, y);
    for (const Reduction& r : passes) schedule_reduction(*result.schedule, p, r, lanes, parallel);
    schedule::Stage& st = (*result.schedule)[y];
    const int rank = static_cast<int>(s[0]);
    if (output_shape(s).back() > 1) {
      auto [o, in] = st.split(st.axis(rank - 1), lanes);
      (void)o;
      st.vectorize(in);
    }
    if (passes.empty() && parallel && rank > 1) st.parallel(st.axis(0));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    reduce_reference(op_, layout().group(s, 0), layout().group(s, 1), in[0], out, tol);
  }

 private:
  ReduceOp op_;
  ReduceOpInfo info_;
};

}  // namespace

std::unique_ptr<Operator> make_reduce(ReduceOp op) { return std::make_unique<Reduce>(op); }

}  // namespace tf::ops

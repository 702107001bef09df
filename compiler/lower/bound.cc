#include "compiler/lower/bound.h"

#include <algorithm>

#include "compiler/analysis/interval.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"

namespace tf::lower {

using schedule::AttachType;
using schedule::Relation;
using schedule::Stage;

namespace {

// Extents of derived axes from the root extents, in the order the relations were made.
void pass_down(const Stage& stage, StageDomain& dom) {
  for (const Relation& r : stage.relations()) {
    if (r.kind == Relation::Split) {
      const auto& s = r.split;
      int64_t parent = dom.extent.at(s.parent.get());
      int64_t inner = std::min(s.factor, parent);
      dom.extent[s.outer.get()] = (parent + inner - 1) / inner;
      dom.extent[s.inner.get()] = inner;
      if (parent % inner != 0) dom.overhang[s.parent.get()] = true;
    } else {
      const auto& f = r.fuse;
      dom.extent[f.fused.get()] = dom.extent.at(f.outer.get()) * dom.extent.at(f.inner.get());
    }
  }
  // An overhang anywhere below a root axis means that root axis needs a guard.
  for (auto it = stage.relations().rbegin(); it != stage.relations().rend(); ++it) {
    if (it->kind == Relation::Split) {
      const auto& s = it->split;
      if (dom.overhang.count(s.outer.get()) || dom.overhang.count(s.inner.get())) dom.overhang[s.parent.get()] = true;
    } else {
      const auto& f = it->fuse;
      if (dom.overhang.count(f.fused.get())) {
        dom.overhang[f.outer.get()] = true;
        dom.overhang[f.inner.get()] = true;
      }
    }
  }
}

class LoadsOf : public ir::IRVisitor {
 public:
  explicit LoadsOf(const ir::Producer* p) : p_(p) {}
  using ir::IRVisitor::visit;
  std::vector<const ir::TensorLoadNode*> loads;

 protected:
  void visit(const ir::TensorLoadNode* n) override {
    if (n->producer.get() == p_) loads.push_back(n);
    ir::IRVisitor::visit(n);
  }

 private:
  const ir::Producer* p_;
};

// The region of `producer` one iteration of consumer's loop `at` reads.
void infer_attached(const Stage& producer, const Stage& consumer, const ir::IterVar& at,
                    const StageDomain& cdom, const ir::Expr& consumer_body, StageDomain& pdom) {
  const auto& shape = producer.op()->shape();
  size_t ndim = shape.size();
  pdom.region_min.assign(ndim, ir::make_int(0));
  pdom.region_extent.assign(shape.begin(), shape.end());

  // Consumer root axes as absolute expressions of its leaf loop variables.
  auto rel = root_values(consumer, cdom);
  ir::VarMap to_leaves;
  for (size_t d = 0; d < consumer.root_axes().size(); ++d) {
    const auto& ax = consumer.root_axes()[d];
    to_leaves[ax->var.get()] = ir::is_zero(cdom.region_min[d]) ? rel.at(ax.get()) : cdom.region_min[d] + rel.at(ax.get());
  }
  for (const auto& ax : consumer.reduce_axes()) to_leaves[ax->var.get()] = rel.at(ax.get()) + ir::make_int(ax->min);

  analysis::IntervalEnv env;
  const auto& leaves = consumer.leaf_iter_vars();
  auto pos = std::find(leaves.begin(), leaves.end(), at);
  for (auto it = pos + 1; it < leaves.end(); ++it) {
    env[(*it)->var.get()] = analysis::Interval::range(0, cdom.extent_of(*it) - 1);
  }

  LoadsOf finder(producer.op().get());
  finder.visit(consumer_body);
  std::vector<std::optional<analysis::Interval>> region(ndim);
  std::vector<bool> whole(ndim, false);
  for (const auto* load : finder.loads) {
    for (size_t d = 0; d < ndim; ++d) {
      if (whole[d]) continue;
      auto iv = analysis::eval_interval(ir::substitute(load->indices[d], to_leaves), env, analysis::FreeVars::Symbolic);
      if (!iv) {
        whole[d] = true;
        continue;
      }
      if (!region[d]) {
        region[d] = iv;
        continue;
      }
      auto dlo = (iv->lo - region[d]->lo).as_constant();
      auto dhi = (iv->hi - region[d]->hi).as_constant();
      if (!dlo || !dhi) {
        whole[d] = true;
        continue;
      }
      if (*dlo < 0) region[d]->lo = iv->lo;
      if (*dhi > 0) region[d]->hi = iv->hi;
    }
  }
  for (size_t d = 0; d < ndim; ++d) {
    if (whole[d] || !region[d]) continue;  // not affine: compute the whole extent, always correct
    auto ext = (region[d]->hi - region[d]->lo).as_constant();
    if (!ext || *ext + 1 <= 0) continue;
    pdom.region_min[d] = region[d]->lo.to_expr();
    pdom.region_extent[d] = *ext + 1;
  }
}

}  // namespace

std::unordered_map<const ir::IterVarNode*, ir::Expr> root_values(const Stage& stage, const StageDomain& dom) {
  std::unordered_map<const ir::IterVarNode*, ir::Expr> value;
  for (const auto& leaf : stage.leaf_iter_vars()) value[leaf.get()] = ir::to_expr(leaf->var);
  const auto& rels = stage.relations();
  for (auto it = rels.rbegin(); it != rels.rend(); ++it) {
    if (it->kind == Relation::Split) {
      const auto& s = it->split;
      int64_t inner = dom.extent_of(s.inner);
      value[s.parent.get()] = value.at(s.outer.get()) * ir::make_int(inner) + value.at(s.inner.get());
    } else {
      const auto& f = it->fuse;
      ir::Expr inner_ext = ir::make_int(dom.extent_of(f.inner));
      const ir::Expr& fused = value.at(f.fused.get());
      value[f.outer.get()] = ir::floordiv(fused, inner_ext);
      value[f.inner.get()] = ir::floormod(fused, inner_ext);
    }
  }
  return value;
}

Bounds infer_bounds(const schedule::Schedule& s, const std::unordered_map<const Stage*, ir::Expr>& bodies) {
  Bounds bounds;
  const auto& stages = s.stages();
  // Consumers come after their producers, so walk backwards.
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const Stage& st = **it;
    if (st.is_placeholder() || st.attach_type() == AttachType::Inline) continue;
    StageDomain dom;
    if (st.attach_type() == AttachType::Scope) {
      const Stage& parent = *st.attach_stage();
      infer_attached(st, parent, st.attach_ivar(), bounds.at(&parent), bodies.at(&parent), dom);
    } else {
      const auto& shape = st.op()->shape();
      dom.region_min.assign(shape.size(), ir::make_int(0));
      dom.region_extent.assign(shape.begin(), shape.end());
    }
    for (size_t d = 0; d < st.root_axes().size(); ++d) dom.extent[st.root_axes()[d].get()] = dom.region_extent[d];
    for (const auto& r : st.reduce_axes()) dom.extent[r.get()] = r->extent;
    pass_down(st, dom);
    bounds[&st] = std::move(dom);
  }
  return bounds;
}

}  // namespace tf::lower

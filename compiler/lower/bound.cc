#include "compiler/lower/bound.h"

#include <algorithm>
#include <optional>

#include "compiler/analysis/interval.h"
#include "compiler/error.h"
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

// The stages between `reader` and `outer`: reader, the stage it is computed at, and so on, up to
// but not including `outer`. Empty when reader is outer; nullopt when reader is not inside it.
std::optional<std::vector<const Stage*>> chain_to(const Stage* reader, const Stage& outer, const ir::IterVar& at) {
  std::vector<const Stage*> chain;
  for (const Stage* s = reader; s != &outer; s = s->attach_stage()) {
    if (s->attach_type() != AttachType::Scope) return std::nullopt;
    chain.push_back(s);
  }
  if (chain.empty()) return chain;
  // The outermost stage of the chain must run inside `at`, not before it.
  const auto& leaves = outer.leaf_iter_vars();
  auto pos = std::find(leaves.begin(), leaves.end(), at);
  auto entry = std::find(leaves.begin(), leaves.end(), chain.back()->attach_ivar());
  if (entry < pos) {
    throw CompileError("bound inference: '" + chain.back()->name() + "' is computed at '" + outer.name() +
                       "''s loop '" + chain.back()->attach_ivar()->var->name + "', outside loop '" + at->var->name +
                       "' where a stage it reads is computed");
  }
  return chain;
}

// Per dimension of a producer, the hull of the index intervals its readers load; `whole` where an
// index is not affine or the hull's extent is not constant.
struct ReadRegion {
  std::vector<std::optional<analysis::Interval>> hull;
  std::vector<bool> whole;
  explicit ReadRegion(size_t ndim) : hull(ndim), whole(ndim, false) {}

  void add(const std::vector<const ir::TensorLoadNode*>& loads, const ir::VarMap& to_leaves,
           const analysis::IntervalEnv& env) {
    for (const auto* load : loads) {
      for (size_t d = 0; d < hull.size(); ++d) {
        if (whole[d]) continue;
        auto iv =
            analysis::eval_interval(ir::substitute(load->indices[d], to_leaves), env, analysis::FreeVars::Symbolic);
        if (!iv) {
          whole[d] = true;
          continue;
        }
        if (!hull[d]) {
          hull[d] = iv;
          continue;
        }
        auto dlo = (iv->lo - hull[d]->lo).as_constant();
        auto dhi = (iv->hi - hull[d]->hi).as_constant();
        if (!dlo || !dhi) {
          whole[d] = true;
          continue;
        }
        if (*dlo < 0) hull[d]->lo = iv->lo;
        if (*dhi > 0) hull[d]->hi = iv->hi;
      }
    }
  }
};

// The region of `producer` one iteration of `outer`'s loop `at` reads: the reads of every stage
// nested there (outer itself, or stages computed inside it), with outer's loops outside `at` fixed
// and every other loop sweeping its range.
void infer_attached(const Stage& producer, const Stage& outer, const ir::IterVar& at, const schedule::Schedule& sch,
                    const Bounds& bounds, const std::unordered_map<const Stage*, ir::Expr>& bodies, StageDomain& pdom) {
  const auto& shape = producer.op()->shape();
  size_t ndim = shape.size();
  pdom.region_min.assign(ndim, ir::make_int(0));
  pdom.region_extent.assign(shape.begin(), shape.end());

  analysis::IntervalEnv outer_env;
  const auto& leaves = outer.leaf_iter_vars();
  auto pos = std::find(leaves.begin(), leaves.end(), at);
  const StageDomain& odom = bounds.at(&outer);
  for (auto it = pos + 1; it < leaves.end(); ++it) {
    outer_env[(*it)->var.get()] = analysis::Interval::range(0, odom.extent_of(*it) - 1);
  }

  ReadRegion region(ndim);
  for (const auto& st : sch.stages()) {
    auto body = bodies.find(st.get());
    if (body == bodies.end() || st->attach_type() == AttachType::Inline) continue;
    LoadsOf finder(producer.op().get());
    finder.visit(body->second);
    if (finder.loads.empty()) continue;
    auto chain = chain_to(st.get(), outer, at);
    if (!chain) continue;  // compute_at refused readers outside `outer`
    const StageDomain& cdom = bounds.at(st.get());
    // Reader root axes as absolute expressions of its leaf loop variables.
    auto rel = root_values(*st, cdom);
    ir::VarMap to_leaves;
    for (size_t d = 0; d < st->root_axes().size(); ++d) {
      const auto& ax = st->root_axes()[d];
      to_leaves[ax->var.get()] =
          ir::is_zero(cdom.region_min[d]) ? rel.at(ax.get()) : cdom.region_min[d] + rel.at(ax.get());
    }
    for (const auto& ax : st->reduce_axes()) to_leaves[ax->var.get()] = rel.at(ax.get()) + ir::make_int(ax->min);
    // Stages between the reader and `outer` run all their loops per iteration of `at`.
    analysis::IntervalEnv env = outer_env;
    for (const Stage* inner : *chain) {
      const StageDomain& idom = bounds.at(inner);
      for (const auto& leaf : inner->leaf_iter_vars())
        env[leaf->var.get()] = analysis::Interval::range(0, idom.extent_of(leaf) - 1);
    }
    region.add(finder.loads, to_leaves, env);
  }
  for (size_t d = 0; d < ndim; ++d) {
    if (region.whole[d] || !region.hull[d]) continue;  // not affine: compute the whole extent, always correct
    auto ext = (region.hull[d]->hi - region.hull[d]->lo).as_constant();
    if (!ext || *ext + 1 <= 0) continue;
    pdom.region_min[d] = region.hull[d]->lo.to_expr();
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
      infer_attached(st, parent, st.attach_ivar(), s, bounds, bodies, dom);
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

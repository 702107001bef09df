// Guard hoisting by loop partitioning.
//
// A split that does not divide its axis leaves a guard `o*F + i < N` deep inside the nest. For the
// outer loop over o the guard holds for every inner i as long as o*F + max(i) < N, so the loop is
// cut at that point: the main part runs without the guard (simplify proves it and drops it) and
// only the last iterations keep it. A vectorized loop cut this way becomes a narrower vector (13
// lanes of a 16-lane tile at the ragged edge of N) and a tail whose guard is false. Unrolled loops
// are left whole: unrolling makes their guards constant anyway.
//
// A padded convolution reads its input through a select whose condition holds only away from the
// edges (`0 <= o*F + i - pad && o*F + i - pad < H`): the first iterations fail the lower bound, the
// last the upper one. Such a loop is cut in three, a head, a main part where every guard holds and
// a tail, so interior tiles run branch- and select-free. Select conditions cut only loops that
// stay mostly select-free (see Partitioner): cutting the three taps of a kernel row in every edge
// tile would copy the tile's code for nothing.
#include <algorithm>

#include "compiler/analysis/interval.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/passes.h"

namespace tf::passes {
namespace {

using analysis::AffineForm;
using analysis::const_range;
using analysis::Interval;

using ir::Expr;
using ir::Stmt;

// Collects the conjuncts of `a && b && ...`.
void conjuncts(const Expr& e, std::vector<Expr>* out) {
  if (const auto* b = e.as<ir::BinaryNode>()) {
    if (b->op == ir::BinaryOp::And) {
      conjuncts(b->a, out);
      conjuncts(b->b, out);
      return;
    }
  }
  out->push_back(e);
}

// Walks a loop's body and finds the first iteration of `var` from which some guard stops holding
// for all values of the loops between the guard and `var`.
// Whether f never decreases as v grows: v appears with positive coefficients only, directly or
// inside floordiv by a positive constant (the outer index of a fused loop). Guards like that fail
// from some iteration on, which is what a cut into main part and tail needs.
bool grows_with(const AffineForm& f, const ir::VarNode* v) {
  for (const auto& t : f.terms()) {
    if (t.atom.get() == v) {
      if (t.coeff < 0) return false;
      continue;
    }
    if (!ir::uses_var(t.atom, v)) continue;
    const auto* div = t.atom.as<ir::BinaryNode>();
    int64_t k = 0;
    if (!div || div->op != ir::BinaryOp::FloorDiv || !ir::is_const_int(div->b, &k) || k <= 0 || t.coeff < 0)
      return false;
    if (!grows_with(AffineForm::of(div->a), v)) return false;
  }
  return true;
}

class SplitPointFinder : public ir::IRVisitor {
 public:
  struct Cut {
    std::optional<int64_t> head;   // main part starts at head
    std::optional<int64_t> split;  // main part ends before split
  };
  SplitPointFinder(const ir::VarNode* var, const analysis::IntervalEnv& outer) : var_(var), ranges_(outer) {}
  Cut guard_cut_;   // from guards (if without else): always taken
  Cut select_cut_;  // from select conditions: taken where the main part stays most of the loop

  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::ForNode* n) override {
    int64_t lo = 0, ext = 0;
    if (ir::is_const_int(n->min, &lo) && ir::is_const_int(n->extent, &ext) && ext > 0) {
      ranges_[n->var.get()] = Interval::range(lo, lo + ext - 1);
      visit(n->body);
      ranges_.erase(n->var.get());
    }
    // A loop of unknown range makes the guards inside it unanalysable; skip them.
  }

  void visit(const ir::LetStmtNode* n) override {
    // A let's value may depend on var_ in ways the range does not capture; stay out.
  }

  void visit(const ir::IfThenElseNode* n) override {
    if (!n->else_case) consider_all(n->cond, guard_cut_);
    visit(n->then_case);
    visit(n->else_case);
  }

  void visit(const ir::SelectNode* n) override {
    consider_all(n->cond, select_cut_);
    ir::IRVisitor::visit(n);
  }

 private:
  void consider_all(const Expr& cond, Cut& cut) {
    if (!cond.type().is_scalar()) return;
    std::vector<Expr> terms;
    conjuncts(cond, &terms);
    for (const auto& t : terms) consider(t, cut);
  }

  // term: a comparison of integers that mentions var_ (linearly, or inside floordiv of a fused
  // loop), read as d <= limit. When d grows with var_ the term fails from some iteration on: the
  // main part [min, s) is the longest prefix over which the range analysis proves the term for
  // all values of the loops inside. When d shrinks as var_ grows the term fails up to some
  // iteration: the main part starts at the first s from which it is proven. Both are found by
  // bisection, which assumes monotony; when it does not hold, the cut found is still proven, only
  // not the widest.
  void consider(const Expr& term, Cut& cut) {
    const auto* b = term.as<ir::BinaryNode>();
    if (!b || !b->a.type().is_scalar() || !b->a.type().is_int()) return;
    if (!ir::uses_var(term, var_)) return;
    AffineForm d;
    int64_t limit = 0;
    switch (b->op) {
      case ir::BinaryOp::LT: d = AffineForm::of(b->a) - AffineForm::of(b->b), limit = -1; break;
      case ir::BinaryOp::LE: d = AffineForm::of(b->a) - AffineForm::of(b->b), limit = 0; break;
      case ir::BinaryOp::GT: d = AffineForm::of(b->b) - AffineForm::of(b->a), limit = -1; break;
      case ir::BinaryOp::GE: d = AffineForm::of(b->b) - AffineForm::of(b->a), limit = 0; break;
      default: return;
    }
    auto holds_on = [&](int64_t first, int64_t last) {
      if (first > last) return true;
      ranges_[var_] = Interval::range(first, last);
      auto r = const_range(d, ranges_);
      ranges_.erase(var_);
      return r && r->hi <= limit;
    };
    if (holds_on(min_, end_ - 1)) return;  // never fails in this loop: simplify removes it
    if (grows_with(d, var_)) {
      int64_t lo = min_, hi = end_;  // holds on [min, lo) is true; find the largest such lo <= hi
      while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        (holds_on(min_, mid - 1) ? lo : hi) = mid;
      }
      cut.split = cut.split ? std::min(*cut.split, lo) : lo;
    } else if (grows_with(d.scaled(-1), var_)) {
      int64_t lo = min_, hi = end_;  // holds on [hi, end) is true; find the smallest such hi
      while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        (holds_on(mid, end_ - 1) ? hi : lo) = mid;
      }
      if (hi < end_) cut.head = cut.head ? std::max(*cut.head, hi) : hi;
    }
  }

 public:
  int64_t min_ = 0, end_ = 0;

 private:
  const ir::VarNode* var_;
  analysis::IntervalEnv ranges_;
};

class Partitioner : public ir::IRMutator {
 public:
  using ir::IRMutator::mutate;

 protected:
  Stmt visit(const ir::ForNode* n, const Stmt& self) override {
    int64_t lo = 0, ext = 0;
    const bool known = ir::is_const_int(n->min, &lo) && ir::is_const_int(n->extent, &ext) && ext > 0;
    if (!known) return ir::IRMutator::visit(n, self);
    const int64_t end = lo + ext;
    if (n->for_kind != ir::ForKind::Unrolled) {
      SplitPointFinder finder(n->var.get(), ranges_);
      finder.min_ = lo;
      finder.end_ = end;
      finder.visit(n->body);
      int64_t first = finder.guard_cut_.head ? std::clamp(*finder.guard_cut_.head, lo, end) : lo;
      int64_t last =
          finder.guard_cut_.split ? std::clamp(*finder.guard_cut_.split, first, end) : end;  // main is [first, last)
      // A select only costs a few instructions where a guard skips work, and every cut copies the
      // body: selects cut only loops of four iterations or more whose select-free part is at
      // least half of them (the tile loops of a padded image, not the taps of a kernel row).
      const int64_t sfirst = finder.select_cut_.head ? std::clamp(*finder.select_cut_.head, first, last) : first;
      const int64_t slast = finder.select_cut_.split ? std::clamp(*finder.select_cut_.split, sfirst, last) : last;
      if (ext >= 4 && 2 * (slast - sfirst) >= ext) first = sfirst, last = slast;
      if (first > lo || last < end) {
        std::vector<Stmt> parts;
        if (first > lo) parts.push_back(loop(n, lo, first - lo));
        if (last > first) parts.push_back(loop(n, first, last - first));
        if (end > last) parts.push_back(loop(n, last, end - last));
        return parts.size() == 1 ? parts[0] : ir::make_seq(parts);
      }
    }
    return loop(n, lo, ext);
  }

 private:
  Stmt loop(const ir::ForNode* n, int64_t min, int64_t extent) {
    ranges_[n->var.get()] = Interval::range(min, min + extent - 1);
    Stmt body = mutate(n->body);
    ranges_.erase(n->var.get());
    return ir::make_for(n->var, ir::make_int(min), ir::make_int(extent), n->for_kind, body);
  }

  analysis::IntervalEnv ranges_;
};

}  // namespace

ir::Stmt partition_loops(const ir::Stmt& s) { return Partitioner().mutate(s); }

}  // namespace tf::passes

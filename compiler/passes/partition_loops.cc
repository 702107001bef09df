// Guard hoisting by loop partitioning.
//
// A split that does not divide its axis leaves a guard `o*F + i < N` deep inside the nest. For the
// outer loop over o the guard holds for every inner i as long as o*F + max(i) < N, so the loop is
// cut at that point: the main part runs without the guard (simplify proves it and drops it) and
// only the last iterations keep it. A vectorized loop cut this way becomes a narrower vector (13
// lanes of a 16-lane tile at the ragged edge of N) and a tail whose guard is false. Unrolled loops
// are left whole: unrolling makes their guards constant anyway.
#include <algorithm>

#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/analysis.h"
#include "compiler/passes/passes.h"

namespace tf::passes {
namespace {

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
class SplitPointFinder : public ir::IRVisitor {
 public:
  SplitPointFinder(const ir::VarNode* var, const RangeMap& outer) : var_(var), ranges_(outer) {}
  std::optional<int64_t> split;  // main part is [min, split)

  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::ForNode* n) override {
    int64_t lo = 0, ext = 0;
    if (ir::is_const_int(n->min, &lo) && ir::is_const_int(n->extent, &ext) && ext > 0) {
      ranges_[n->var.get()] = Range{lo, lo + ext - 1};
      visit(n->body);
      ranges_.erase(n->var.get());
    }
    // A loop of unknown range makes the guards inside it unanalysable; skip them.
  }

  void visit(const ir::LetStmtNode* n) override {
    // A let's value may depend on var_ in ways the range does not capture; stay out.
  }

  void visit(const ir::IfThenElseNode* n) override {
    if (!n->else_case) {
      std::vector<Expr> terms;
      conjuncts(n->cond, &terms);
      for (const auto& t : terms) consider(t);
    }
    visit(n->then_case);
    visit(n->else_case);
  }

 private:
  // term: lhs < c or lhs <= c with lhs linear, var_ having a positive coefficient.
  void consider(const Expr& term) {
    const auto* b = term.as<ir::BinaryNode>();
    if (!b || (b->op != ir::BinaryOp::LT && b->op != ir::BinaryOp::LE) || !b->a.type().is_scalar() || !b->a.type().is_int()) return;
    LinearForm d = LinearForm::of(b->a);
    d.add(LinearForm::of(b->b), -1);
    const int64_t a = d.coeff_of(var_);
    if (a <= 0) return;
    LinearForm rest = d;
    rest.add(LinearForm::of(Expr(std::static_pointer_cast<const ir::ExprNode>(find_var(d)))), -a);
    auto r = rest.range(ranges_);
    if (!r) return;
    // a*v + rest < 0 for every rest  <=>  a*v < -r.hi  <=>  v <= floor((-r.hi - 1) / a)
    const int64_t bound = b->op == ir::BinaryOp::LT ? -r->hi - 1 : -r->hi;
    const int64_t first_failing = floor_div(bound, a) + 1;
    split = split ? std::min(*split, first_failing) : first_failing;
  }

  std::shared_ptr<const ir::VarNode> find_var(const LinearForm& d) const {
    for (const auto& t : d.terms()) {
      if (t.atom.get() == var_) return std::static_pointer_cast<const ir::VarNode>(t.atom.ptr());
    }
    return nullptr;
  }

  const ir::VarNode* var_;
  RangeMap ranges_;
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
      finder.visit(n->body);
      if (finder.split && *finder.split > lo && *finder.split < end) {
        const int64_t s = *finder.split;
        Stmt main = loop(n, lo, s - lo);
        Stmt tail = loop(n, s, end - s);
        return ir::make_seq({main, tail});
      }
    }
    return loop(n, lo, ext);
  }

 private:
  Stmt loop(const ir::ForNode* n, int64_t min, int64_t extent) {
    ranges_[n->var.get()] = Range{min, min + extent - 1};
    Stmt body = mutate(n->body);
    ranges_.erase(n->var.get());
    return ir::make_for(n->var, ir::make_int(min), ir::make_int(extent), n->for_kind, body);
  }

  RangeMap ranges_;
};

}  // namespace

ir::Stmt partition_loops(const ir::Stmt& s) { return Partitioner().mutate(s); }

}  // namespace tf::passes

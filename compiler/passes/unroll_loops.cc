// Unrolling: a ForKind::Unrolled loop of constant extent becomes that many copies of its body, each
// with the loop variable replaced by its constant, so that simplify can fold the indices (this is
// what gives every accumulator of a register tile a constant address, and SROA a register).
#include "compiler/ir/mutator.h"
#include "compiler/passes/passes.h"

namespace tf::passes {
namespace {

// Past this many copies an unrolled loop stays a loop: code size would cost more than it saves.
constexpr int64_t kMaxUnroll = 64;

// One copy of an unrolled body: the loop variable replaced by a constant, and a select whose
// condition that constant decides replaced by the branch taken. Copying every branch into every
// copy for simplify to drop later would cost the square of the extent: a Winograd transform's
// matrix entries are select chains over two unrolled indices (64 cases each for F(6x6,3x3)).
class CopyWithConstant : public ir::IRMutator {
 public:
  CopyWithConstant(const ir::VarNode* var, ir::Expr value) : var_(var), value_(std::move(value)) {}
  using ir::IRMutator::mutate;

 protected:
  using ir::IRMutator::visit;
  ir::Expr visit(const ir::VarNode* n, const ir::Expr& self) override { return n == var_ ? value_ : self; }
  ir::Expr visit(const ir::SelectNode* n, const ir::Expr& self) override {
    ir::Expr cond = mutate(n->cond);
    if (!cond.same_as(n->cond) && cond.type().is_scalar()) {
      int64_t decided = 0;
      if (ir::is_const_int(simplify(cond), &decided)) return mutate(decided != 0 ? n->true_value : n->false_value);
    }
    return ir::IRMutator::visit(n, self);
  }

 private:
  const ir::VarNode* var_;
  ir::Expr value_;
};

class Unroller : public ir::IRMutator {
 public:
  using ir::IRMutator::mutate;

 protected:
  ir::Stmt visit(const ir::ForNode* n, const ir::Stmt& self) override {
    ir::Stmt body = mutate(n->body);  // inner loops first
    int64_t min = 0, extent = 0;
    if (n->for_kind == ir::ForKind::Unrolled) {
      if (ir::is_const_int(n->min, &min) && ir::is_const_int(n->extent, &extent) && extent <= kMaxUnroll) {
        std::vector<ir::Stmt> copies;
        copies.reserve(static_cast<size_t>(extent));
        for (int64_t i = 0; i < extent; ++i)
          copies.push_back(CopyWithConstant(n->var.get(), ir::make_int(min + i)).mutate(body));
        return ir::make_seq(copies);
      }
      return ir::make_for(n->var, n->min, n->extent, ir::ForKind::Serial, body);
    }
    if (body.same_as(n->body)) return self;
    return ir::make_for(n->var, n->min, n->extent, n->for_kind, body);
  }
};

}  // namespace

ir::Stmt unroll_loops(const ir::Stmt& s) { return Unroller().mutate(s); }

}  // namespace tf::passes

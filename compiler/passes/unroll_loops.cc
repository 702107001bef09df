// Unrolling: a ForKind::Unrolled loop of constant extent becomes that many copies of its body, each
// with the loop variable replaced by its constant, so that simplify can fold the indices (this is
// what gives every accumulator of a register tile a constant address, and SROA a register).
#include "compiler/ir/mutator.h"
#include "compiler/ir/substitute.h"
#include "compiler/passes/passes.h"

namespace tf::passes {
namespace {

// Past this many copies an unrolled loop stays a loop: code size would cost more than it saves.
constexpr int64_t kMaxUnroll = 64;

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
        for (int64_t i = 0; i < extent; ++i)
          copies.push_back(ir::substitute(body, {{n->var.get(), ir::make_int(min + i)}}));
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

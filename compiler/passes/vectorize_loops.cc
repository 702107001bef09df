// Vectorization: a ForKind::Vectorized loop of constant extent L becomes one vector statement. The
// loop variable becomes Ramp(min, 1, L); whatever does not depend on it stays scalar and is
// broadcast only where it meets a vector, so `C[i] += A[k] * B[k*N + i]` turns into one broadcast
// of A[k], one contiguous load of B and one vector FMA. When the body is not a straight-line list
// of stores (an inner loop, an allocation, a guard that depends on the lane, a store every lane
// would write to the same place) the loop stays serial: slower, never wrong.
#include <unordered_map>

#include "compiler/analysis/affine.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/passes.h"

namespace tf::passes {
namespace {

using analysis::AffineForm;

using ir::Expr;
using ir::Stmt;

class LaneWidener : public ir::IRMutator {
 public:
  LaneWidener(const ir::VarNode* var, Expr min, int lanes) : var_(var), min_(std::move(min)), lanes_(lanes) {}
  bool failed() const { return failed_; }

  using ir::IRMutator::mutate;

 protected:
  Expr visit(const ir::VarNode* n, const Expr& self) override {
    if (n == var_) return ir::make_ramp(min_, ir::make_int(1, min_.type()), lanes_);
    auto it = vector_lets_.find(n);
    return it == vector_lets_.end() ? self : it->second;
  }

  Expr visit(const ir::BinaryNode* n, const Expr& self) override {
    Expr a = mutate(n->a), b = mutate(n->b);
    if (a.same_as(n->a) && b.same_as(n->b)) return self;
    // Keep affine index arithmetic in Ramp form, which codegen turns into contiguous accesses.
    const auto *ra = a.as<ir::RampNode>(), *rb = b.as<ir::RampNode>();
    const bool sa = a.type().is_scalar(), sb = b.type().is_scalar();
    switch (n->op) {
      case ir::BinaryOp::Add:
        if (ra && sb) return ir::make_ramp(ra->base + b, ra->stride, lanes_);
        if (rb && sa) return ir::make_ramp(a + rb->base, rb->stride, lanes_);
        if (ra && rb) return ir::make_ramp(ra->base + rb->base, ra->stride + rb->stride, lanes_);
        break;
      case ir::BinaryOp::Sub:
        if (ra && sb) return ir::make_ramp(ra->base - b, ra->stride, lanes_);
        if (rb && sa) return ir::make_ramp(a - rb->base, ir::make_int(0, rb->stride.type()) - rb->stride, lanes_);
        if (ra && rb) return ir::make_ramp(ra->base - rb->base, ra->stride - rb->stride, lanes_);
        break;
      case ir::BinaryOp::Mul:
        if (ra && sb) return ir::make_ramp(ra->base * b, ra->stride * b, lanes_);
        if (rb && sa) return ir::make_ramp(a * rb->base, a * rb->stride, lanes_);
        break;
      default: break;
    }
    return ir::make_binary(n->op, a, b);  // the builder broadcasts a scalar side
  }

  Expr visit(const ir::CallNode* n, const Expr& self) override {
    std::vector<Expr> args;
    bool vector = false, changed = false;
    for (const auto& a : n->args) {
      args.push_back(mutate(a));
      changed |= !args.back().same_as(a);
      vector |= args.back().type().is_vector();
    }
    if (!changed) return self;
    if (vector) {
      for (auto& a : args) {
        if (a.type().is_scalar()) a = ir::make_broadcast(a, lanes_);
      }
    }
    return ir::make_call(n->func, args);
  }

  Expr visit(const ir::CastNode* n, const Expr& self) override {
    Expr v = mutate(n->value);
    if (v.same_as(n->value)) return self;
    return ir::make_cast(n->type.with_lanes(v.type().lanes), v);
  }

  Expr visit(const ir::SelectNode* n, const Expr& self) override {
    Expr c = mutate(n->cond), t = mutate(n->true_value), f = mutate(n->false_value);
    if (c.same_as(n->cond) && t.same_as(n->true_value) && f.same_as(n->false_value)) return self;
    if (t.type().is_scalar() && (f.type().is_vector() || c.type().is_vector())) t = ir::make_broadcast(t, lanes_);
    if (f.type().is_scalar() && (t.type().is_vector() || c.type().is_vector())) f = ir::make_broadcast(f, lanes_);
    return ir::make_select(c, t, f);
  }

  Stmt visit(const ir::StoreNode* n, const Stmt& self) override {
    Expr index = mutate(n->index), value = mutate(n->value);
    if (index.type().is_scalar()) {
      // Every lane would write the same element: a reduction across lanes, not a vector store.
      failed_ = true;
      return self;
    }
    return ir::make_store(n->buffer, index, value);
  }

  Stmt visit(const ir::IfThenElseNode* n, const Stmt& self) override {
    Expr c = mutate(n->cond);
    if (c.type().is_vector()) {
      failed_ = true;
      return self;
    }
    Stmt t = mutate(n->then_case), e = mutate(n->else_case);
    return ir::make_if(c, t, e);
  }

  Stmt visit(const ir::LetStmtNode* n, const Stmt& self) override {
    Expr v = mutate(n->value);
    if (v.type().is_scalar()) {
      Stmt body = mutate(n->body);
      return ir::make_let(n->var, v, body);
    }
    ir::Var wide = ir::make_var(n->var->name, v.type());
    vector_lets_[n->var.get()] = ir::to_expr(wide);
    Stmt body = mutate(n->body);
    vector_lets_.erase(n->var.get());
    return ir::make_let(wide, v, body);
  }

  Stmt visit(const ir::ForNode* n, const Stmt& self) override {
    failed_ = true;
    return self;
  }

  Stmt visit(const ir::AllocateNode* n, const Stmt& self) override {
    failed_ = true;
    return self;
  }

 private:
  const ir::VarNode* var_;
  Expr min_;
  int lanes_;
  bool failed_ = false;
  std::unordered_map<const ir::VarNode*, Expr> vector_lets_;
};

// Collects every load and store of the loop body, by buffer.
class AccessCollector : public ir::IRVisitor {
 public:
  struct Access {
    Expr index;
    bool is_store;
  };
  std::unordered_map<const ir::BufferNode*, std::vector<Access>> accesses;

  using ir::IRVisitor::visit;

 protected:
  void visit(const ir::LoadNode* n) override {
    accesses[n->buffer.get()].push_back({n->index, false});
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::StoreNode* n) override {
    accesses[n->buffer.get()].push_back({n->index, true});
    ir::IRVisitor::visit(n);
  }
};

// Running all lanes at once is legal when no lane reads or writes an element another lane writes:
// for every store into a buffer, each other access of that buffer is at the same index, or at a
// constant offset of at least `lanes` elements (the rows of an unrolled tile: C.local[16 + n] and
// C.local[n] never meet).
bool lanes_independent(const Stmt& body, int lanes) {
  AccessCollector c;
  c.visit(body);
  for (const auto& [buffer, list] : c.accesses) {
    for (const auto& store : list) {
      if (!store.is_store) continue;
      for (const auto& other : list) {
        AffineForm d = AffineForm::of(other.index);
        d.add(AffineForm::of(store.index), -1);
        if (!d.is_constant()) return false;
        const int64_t off = d.constant_part();
        if (off != 0 && off < lanes && off > -lanes) return false;
      }
    }
  }
  return true;
}

class Vectorizer : public ir::IRMutator {
 public:
  using ir::IRMutator::mutate;

 protected:
  Stmt visit(const ir::ForNode* n, const Stmt& self) override {
    Stmt body = mutate(n->body);
    int64_t extent = 0;
    if (n->for_kind == ir::ForKind::Vectorized) {
      if (ir::is_const_int(n->extent, &extent) && extent >= 2 && extent <= 64 && n->min.type().is_scalar() &&
          lanes_independent(body, static_cast<int>(extent))) {
        LaneWidener widen(n->var.get(), n->min, static_cast<int>(extent));
        Stmt vector = widen.mutate(body);
        if (!widen.failed()) return vector;
      }
      return ir::make_for(n->var, n->min, n->extent, ir::ForKind::Serial, body);
    }
    if (body.same_as(n->body)) return self;
    return ir::make_for(n->var, n->min, n->extent, n->for_kind, body);
  }
};

}  // namespace

ir::Stmt vectorize_loops(const ir::Stmt& s) { return Vectorizer().mutate(s); }

}  // namespace tf::passes

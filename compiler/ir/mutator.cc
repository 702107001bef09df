#include "compiler/ir/mutator.h"

namespace tf::ir {

Expr IRMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::IntImm: return visit(static_cast<const IntImmNode*>(e.get()), e);
    case ExprKind::FloatImm: return visit(static_cast<const FloatImmNode*>(e.get()), e);
    case ExprKind::Var: return visit(static_cast<const VarNode*>(e.get()), e);
    case ExprKind::Binary: return visit(static_cast<const BinaryNode*>(e.get()), e);
    case ExprKind::Not: return visit(static_cast<const NotNode*>(e.get()), e);
    case ExprKind::Select: return visit(static_cast<const SelectNode*>(e.get()), e);
    case ExprKind::Cast: return visit(static_cast<const CastNode*>(e.get()), e);
    case ExprKind::Call: return visit(static_cast<const CallNode*>(e.get()), e);
    case ExprKind::Load: return visit(static_cast<const LoadNode*>(e.get()), e);
    case ExprKind::TensorLoad: return visit(static_cast<const TensorLoadNode*>(e.get()), e);
    case ExprKind::Ramp: return visit(static_cast<const RampNode*>(e.get()), e);
    case ExprKind::Broadcast: return visit(static_cast<const BroadcastNode*>(e.get()), e);
    case ExprKind::Reduce: return visit(static_cast<const ReduceNode*>(e.get()), e);
  }
  return e;
}

Stmt IRMutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::For: return visit(static_cast<const ForNode*>(s.get()), s);
    case StmtKind::Store: return visit(static_cast<const StoreNode*>(s.get()), s);
    case StmtKind::Allocate: return visit(static_cast<const AllocateNode*>(s.get()), s);
    case StmtKind::Seq: return visit(static_cast<const SeqNode*>(s.get()), s);
    case StmtKind::IfThenElse: return visit(static_cast<const IfThenElseNode*>(s.get()), s);
    case StmtKind::LetStmt: return visit(static_cast<const LetStmtNode*>(s.get()), s);
    case StmtKind::Prefetch: return visit(static_cast<const PrefetchNode*>(s.get()), s);
  }
  return s;
}

Expr IRMutator::visit(const BinaryNode* n, const Expr& self) {
  Expr a = mutate(n->a), b = mutate(n->b);
  if (a.same_as(n->a) && b.same_as(n->b)) return self;
  return make_binary(n->op, a, b);
}

Expr IRMutator::visit(const NotNode* n, const Expr& self) {
  Expr a = mutate(n->a);
  return a.same_as(n->a) ? self : make_not(a);
}

Expr IRMutator::visit(const SelectNode* n, const Expr& self) {
  Expr c = mutate(n->cond), t = mutate(n->true_value), f = mutate(n->false_value);
  if (c.same_as(n->cond) && t.same_as(n->true_value) && f.same_as(n->false_value)) return self;
  return make_select(c, t, f);
}

Expr IRMutator::visit(const CastNode* n, const Expr& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : make_cast(n->type, v);
}

Expr IRMutator::visit(const CallNode* n, const Expr& self) {
  std::vector<Expr> args;
  bool changed = false;
  for (const auto& a : n->args) {
    args.push_back(mutate(a));
    changed |= !args.back().same_as(a);
  }
  return changed ? make_call(n->func, std::move(args)) : self;
}

Expr IRMutator::visit(const LoadNode* n, const Expr& self) {
  Expr i = mutate(n->index);
  return i.same_as(n->index) ? self : make_load(n->buffer, i);
}

Expr IRMutator::visit(const TensorLoadNode* n, const Expr& self) {
  std::vector<Expr> idx;
  bool changed = false;
  for (const auto& i : n->indices) {
    idx.push_back(mutate(i));
    changed |= !idx.back().same_as(i);
  }
  return changed ? make_tensor_load(n->producer, std::move(idx)) : self;
}

Expr IRMutator::visit(const RampNode* n, const Expr& self) {
  Expr b = mutate(n->base), s = mutate(n->stride);
  if (b.same_as(n->base) && s.same_as(n->stride)) return self;
  return make_ramp(b, s, n->lanes);
}

Expr IRMutator::visit(const BroadcastNode* n, const Expr& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : make_broadcast(v, n->lanes);
}

Expr IRMutator::visit(const ReduceNode* n, const Expr& self) {
  Expr s = mutate(n->source);
  return s.same_as(n->source) ? self : make_reduce(n->combiner, s, n->axes);
}

Stmt IRMutator::visit(const ForNode* n, const Stmt& self) {
  Expr mn = mutate(n->min), ext = mutate(n->extent);
  Stmt body = mutate(n->body);
  if (mn.same_as(n->min) && ext.same_as(n->extent) && body.same_as(n->body)) return self;
  if (!body) return Stmt();
  return make_for(n->var, mn, ext, n->for_kind, body);
}

Stmt IRMutator::visit(const StoreNode* n, const Stmt& self) {
  Expr i = mutate(n->index), v = mutate(n->value);
  if (i.same_as(n->index) && v.same_as(n->value)) return self;
  return make_store(n->buffer, i, v);
}

Stmt IRMutator::visit(const AllocateNode* n, const Stmt& self) {
  Stmt body = mutate(n->body);
  if (body.same_as(n->body)) return self;
  if (!body) return Stmt();
  return make_allocate(n->buffer, body);
}

Stmt IRMutator::visit(const SeqNode* n, const Stmt& self) {
  std::vector<Stmt> stmts;
  bool changed = false;
  for (const auto& s : n->stmts) {
    stmts.push_back(mutate(s));
    changed |= !stmts.back().same_as(s);
  }
  return changed ? make_seq(std::move(stmts)) : self;
}

Stmt IRMutator::visit(const IfThenElseNode* n, const Stmt& self) {
  Expr c = mutate(n->cond);
  Stmt t = mutate(n->then_case), e = mutate(n->else_case);
  if (c.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)) return self;
  if (!t && !e) return Stmt();
  if (!t) return make_if(make_not(c), e);
  return make_if(c, t, e);
}

Stmt IRMutator::visit(const LetStmtNode* n, const Stmt& self) {
  Expr v = mutate(n->value);
  Stmt body = mutate(n->body);
  if (v.same_as(n->value) && body.same_as(n->body)) return self;
  if (!body) return Stmt();
  return make_let(n->var, v, body);
}

Stmt IRMutator::visit(const PrefetchNode* n, const Stmt& self) {
  Expr i = mutate(n->index);
  if (i.same_as(n->index)) return self;
  return make_prefetch(n->buffer, i);
}

}  // namespace tf::ir

#include "compiler/ir/visitor.h"

namespace tf::ir {

void IRVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::IntImm: return visit(static_cast<const IntImmNode*>(e.get()));
    case ExprKind::FloatImm: return visit(static_cast<const FloatImmNode*>(e.get()));
    case ExprKind::Var: return visit(static_cast<const VarNode*>(e.get()));
    case ExprKind::Binary: return visit(static_cast<const BinaryNode*>(e.get()));
    case ExprKind::Not: return visit(static_cast<const NotNode*>(e.get()));
    case ExprKind::Select: return visit(static_cast<const SelectNode*>(e.get()));
    case ExprKind::Cast: return visit(static_cast<const CastNode*>(e.get()));
    case ExprKind::Call: return visit(static_cast<const CallNode*>(e.get()));
    case ExprKind::Load: return visit(static_cast<const LoadNode*>(e.get()));
    case ExprKind::TensorLoad: return visit(static_cast<const TensorLoadNode*>(e.get()));
    case ExprKind::Ramp: return visit(static_cast<const RampNode*>(e.get()));
    case ExprKind::Broadcast: return visit(static_cast<const BroadcastNode*>(e.get()));
    case ExprKind::Reduce: return visit(static_cast<const ReduceNode*>(e.get()));
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::For: return visit(static_cast<const ForNode*>(s.get()));
    case StmtKind::Store: return visit(static_cast<const StoreNode*>(s.get()));
    case StmtKind::Allocate: return visit(static_cast<const AllocateNode*>(s.get()));
    case StmtKind::Seq: return visit(static_cast<const SeqNode*>(s.get()));
    case StmtKind::IfThenElse: return visit(static_cast<const IfThenElseNode*>(s.get()));
    case StmtKind::LetStmt: return visit(static_cast<const LetStmtNode*>(s.get()));
    case StmtKind::Prefetch: return visit(static_cast<const PrefetchNode*>(s.get()));
  }
}

void IRVisitor::visit(const BinaryNode* n) {
  visit(n->a);
  visit(n->b);
}
void IRVisitor::visit(const NotNode* n) { visit(n->a); }
void IRVisitor::visit(const SelectNode* n) {
  visit(n->cond);
  visit(n->true_value);
  visit(n->false_value);
}
void IRVisitor::visit(const CastNode* n) { visit(n->value); }
void IRVisitor::visit(const CallNode* n) {
  for (const auto& a : n->args) visit(a);
}
void IRVisitor::visit(const LoadNode* n) { visit(n->index); }
void IRVisitor::visit(const TensorLoadNode* n) {
  for (const auto& i : n->indices) visit(i);
}
void IRVisitor::visit(const RampNode* n) {
  visit(n->base);
  visit(n->stride);
}
void IRVisitor::visit(const BroadcastNode* n) { visit(n->value); }
void IRVisitor::visit(const ReduceNode* n) { visit(n->source); }

void IRVisitor::visit(const ForNode* n) {
  visit(n->min);
  visit(n->extent);
  visit(n->body);
}
void IRVisitor::visit(const StoreNode* n) {
  visit(n->index);
  visit(n->value);
}
void IRVisitor::visit(const AllocateNode* n) { visit(n->body); }
void IRVisitor::visit(const SeqNode* n) {
  for (const auto& s : n->stmts) visit(s);
}
void IRVisitor::visit(const IfThenElseNode* n) {
  visit(n->cond);
  visit(n->then_case);
  visit(n->else_case);
}
void IRVisitor::visit(const LetStmtNode* n) {
  visit(n->value);
  visit(n->body);
}
void IRVisitor::visit(const PrefetchNode* n) { visit(n->index); }

}  // namespace tf::ir

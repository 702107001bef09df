// Rewriting traversal of the IR. Each visit() gets the node and the handle that owns it, and returns
// the replacement; the base versions rebuild a node only when a child changed, so an untouched
// subtree keeps its identity (and sharing).
#pragma once

#include "compiler/ir/ir.h"

namespace tf::ir {

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr& e);  // dispatches on kind; null maps to null
  virtual Stmt mutate(const Stmt& s);

 protected:
  virtual Expr visit(const IntImmNode*, const Expr& self) { return self; }
  virtual Expr visit(const FloatImmNode*, const Expr& self) { return self; }
  virtual Expr visit(const VarNode*, const Expr& self) { return self; }
  virtual Expr visit(const BinaryNode* n, const Expr& self);
  virtual Expr visit(const NotNode* n, const Expr& self);
  virtual Expr visit(const SelectNode* n, const Expr& self);
  virtual Expr visit(const CastNode* n, const Expr& self);
  virtual Expr visit(const CallNode* n, const Expr& self);
  virtual Expr visit(const LoadNode* n, const Expr& self);
  virtual Expr visit(const TensorLoadNode* n, const Expr& self);
  virtual Expr visit(const RampNode* n, const Expr& self);
  virtual Expr visit(const BroadcastNode* n, const Expr& self);
  virtual Expr visit(const ReduceNode* n, const Expr& self);

  virtual Stmt visit(const ForNode* n, const Stmt& self);
  virtual Stmt visit(const StoreNode* n, const Stmt& self);
  virtual Stmt visit(const AllocateNode* n, const Stmt& self);
  virtual Stmt visit(const SeqNode* n, const Stmt& self);
  virtual Stmt visit(const IfThenElseNode* n, const Stmt& self);
  virtual Stmt visit(const LetStmtNode* n, const Stmt& self);
  virtual Stmt visit(const PrefetchNode* n, const Stmt& self);
};

}  // namespace tf::ir

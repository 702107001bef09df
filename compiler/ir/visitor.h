// Read-only traversal of the IR. Override the visit() of the nodes you care about and call the base
// version to keep walking into children.
#pragma once

#include "compiler/ir/ir.h"

namespace tf::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  void visit(const Expr& e);  // dispatches on kind; null is ignored
  void visit(const Stmt& s);

 protected:
  virtual void visit(const IntImmNode*) {}
  virtual void visit(const FloatImmNode*) {}
  virtual void visit(const VarNode*) {}
  virtual void visit(const BinaryNode* n);
  virtual void visit(const NotNode* n);
  virtual void visit(const SelectNode* n);
  virtual void visit(const CastNode* n);
  virtual void visit(const CallNode* n);
  virtual void visit(const LoadNode* n);
  virtual void visit(const TensorLoadNode* n);
  virtual void visit(const RampNode* n);
  virtual void visit(const BroadcastNode* n);
  virtual void visit(const ReduceNode* n);

  virtual void visit(const ForNode* n);
  virtual void visit(const StoreNode* n);
  virtual void visit(const AllocateNode* n);
  virtual void visit(const SeqNode* n);
  virtual void visit(const IfThenElseNode* n);
  virtual void visit(const LetStmtNode* n);
  virtual void visit(const PrefetchNode* n);
};

}  // namespace tf::ir

// How many of each kind of node a lowered statement holds, for tests that check what a pass
// removed (guards, selects) or produced (vector loops, ramps, broadcasts).
#pragma once

#include "compiler/ir/visitor.h"

namespace tf::testing_support {

struct IrCounts : ir::IRVisitor {
  using ir::IRVisitor::visit;
  int ifs = 0, selects = 0, fors = 0, stores = 0, ramps = 0, broadcasts = 0, vector_fors = 0;
  void visit(const ir::IfThenElseNode* n) override {
    ++ifs;
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::SelectNode* n) override {
    ++selects;
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::ForNode* n) override {
    ++fors;
    if (n->for_kind == ir::ForKind::Vectorized || n->for_kind == ir::ForKind::Unrolled) ++vector_fors;
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::StoreNode* n) override {
    ++stores;
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::RampNode* n) override {
    ++ramps;
    ir::IRVisitor::visit(n);
  }
  void visit(const ir::BroadcastNode* n) override {
    ++broadcasts;
    ir::IRVisitor::visit(n);
  }
};

inline IrCounts count_nodes(const ir::Stmt& s) {
  IrCounts c;
  c.visit(s);
  return c;
}

}  // namespace tf::testing_support

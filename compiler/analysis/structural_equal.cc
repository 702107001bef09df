#include "compiler/analysis/structural_equal.h"

namespace tf::analysis {

bool structurally_equal(const ir::Expr& a, const ir::Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a->kind != b->kind || a.type() != b.type()) return false;
  switch (a->kind) {
    case ir::ExprKind::IntImm: return a.as<ir::IntImmNode>()->value == b.as<ir::IntImmNode>()->value;
    case ir::ExprKind::FloatImm: return a.as<ir::FloatImmNode>()->value == b.as<ir::FloatImmNode>()->value;
    case ir::ExprKind::Var: return false;  // identity only, checked above
    case ir::ExprKind::Binary: {
      auto *x = a.as<ir::BinaryNode>(), *y = b.as<ir::BinaryNode>();
      return x->op == y->op && structurally_equal(x->a, y->a) && structurally_equal(x->b, y->b);
    }
    case ir::ExprKind::Not: return structurally_equal(a.as<ir::NotNode>()->a, b.as<ir::NotNode>()->a);
    case ir::ExprKind::Select: {
      auto *x = a.as<ir::SelectNode>(), *y = b.as<ir::SelectNode>();
      return structurally_equal(x->cond, y->cond) && structurally_equal(x->true_value, y->true_value) &&
             structurally_equal(x->false_value, y->false_value);
    }
    case ir::ExprKind::Cast: return structurally_equal(a.as<ir::CastNode>()->value, b.as<ir::CastNode>()->value);
    case ir::ExprKind::Call: {
      auto *x = a.as<ir::CallNode>(), *y = b.as<ir::CallNode>();
      if (x->func != y->func || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i) {
        if (!structurally_equal(x->args[i], y->args[i])) return false;
      }
      return true;
    }
    case ir::ExprKind::Load: {
      auto *x = a.as<ir::LoadNode>(), *y = b.as<ir::LoadNode>();
      return x->buffer == y->buffer && structurally_equal(x->index, y->index);
    }
    case ir::ExprKind::Ramp: {
      auto *x = a.as<ir::RampNode>(), *y = b.as<ir::RampNode>();
      return x->lanes == y->lanes && structurally_equal(x->base, y->base) && structurally_equal(x->stride, y->stride);
    }
    case ir::ExprKind::Broadcast: {
      auto *x = a.as<ir::BroadcastNode>(), *y = b.as<ir::BroadcastNode>();
      return x->lanes == y->lanes && structurally_equal(x->value, y->value);
    }
    case ir::ExprKind::TensorLoad:
    case ir::ExprKind::Reduce: return false;  // gone after lowering; never worth comparing
  }
  return false;
}

}  // namespace tf::analysis

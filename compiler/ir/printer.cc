#include "compiler/ir/printer.h"

#include <iomanip>
#include <sstream>

namespace tf::ir {
namespace {

void print_expr(std::ostream& os, const Expr& e);

void print_args(std::ostream& os, const std::vector<Expr>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) os << ", ";
    print_expr(os, args[i]);
  }
}

void print_expr(std::ostream& os, const Expr& e) {
  if (!e) {
    os << "<null>";
    return;
  }
  switch (e->kind) {
    case ExprKind::IntImm: {
      auto* n = e.as<IntImmNode>();
      if (n->type.is_bool())
        os << (n->value ? "true" : "false");
      else
        os << n->value;
      return;
    }
    case ExprKind::FloatImm: {
      auto* n = e.as<FloatImmNode>();
      std::ostringstream s;
      s << std::setprecision(9) << n->value;
      std::string str = s.str();
      if (str.find_first_of(".eni") == std::string::npos) str += ".0";
      os << str << "f";
      return;
    }
    case ExprKind::Var: os << e.as<VarNode>()->name; return;
    case ExprKind::Binary: {
      auto* n = e.as<BinaryNode>();
      switch (n->op) {
        case BinaryOp::FloorDiv:
        case BinaryOp::FloorMod:
        case BinaryOp::Min:
        case BinaryOp::Max:
          os << binary_op_name(n->op) << "(";
          print_expr(os, n->a);
          os << ", ";
          print_expr(os, n->b);
          os << ")";
          return;
        default:
          os << "(";
          print_expr(os, n->a);
          os << " " << binary_op_name(n->op) << " ";
          print_expr(os, n->b);
          os << ")";
          return;
      }
    }
    case ExprKind::Not:
      os << "!";
      print_expr(os, e.as<NotNode>()->a);
      return;
    case ExprKind::Select: {
      auto* n = e.as<SelectNode>();
      os << "select(";
      print_args(os, {n->cond, n->true_value, n->false_value});
      os << ")";
      return;
    }
    case ExprKind::Cast:
      os << "(" << e.type().str() << ")";
      print_expr(os, e.as<CastNode>()->value);
      return;
    case ExprKind::Call: {
      auto* n = e.as<CallNode>();
      os << intrinsic_name(n->func) << "(";
      print_args(os, n->args);
      os << ")";
      return;
    }
    case ExprKind::Load: {
      auto* n = e.as<LoadNode>();
      os << n->buffer->name << "[";
      print_expr(os, n->index);
      os << "]";
      return;
    }
    case ExprKind::TensorLoad: {
      auto* n = e.as<TensorLoadNode>();
      os << n->producer->name() << "(";
      print_args(os, n->indices);
      os << ")";
      return;
    }
    case ExprKind::Ramp: {
      auto* n = e.as<RampNode>();
      os << "ramp(";
      print_args(os, {n->base, n->stride});
      os << ", " << n->lanes << ")";
      return;
    }
    case ExprKind::Broadcast: {
      auto* n = e.as<BroadcastNode>();
      os << "x" << n->lanes << "(";
      print_expr(os, n->value);
      os << ")";
      return;
    }
    case ExprKind::Reduce: {
      auto* n = e.as<ReduceNode>();
      os << reduce_kind_name(n->combiner) << "(";
      print_expr(os, n->source);
      os << ", axis=[";
      for (size_t i = 0; i < n->axes.size(); ++i) {
        if (i) os << ", ";
        os << n->axes[i]->var->name;
      }
      os << "])";
      return;
    }
  }
}

void print_stmt(std::ostream& os, const Stmt& s, int indent) {
  std::string pad(indent * 2, ' ');
  if (!s) return;
  switch (s->kind) {
    case StmtKind::For: {
      auto* n = s.as<ForNode>();
      os << pad;
      if (n->for_kind != ForKind::Serial) os << "// " << for_kind_name(n->for_kind) << "\n" << pad;
      const std::string& v = n->var->name;
      os << "for (" << v << " = ";
      print_expr(os, n->min);
      os << "; " << v << " < ";
      if (is_zero(n->min)) {
        print_expr(os, n->extent);
      } else {
        print_expr(os, n->min);
        os << " + ";
        print_expr(os, n->extent);
      }
      os << "; ++" << v << ") {\n";
      print_stmt(os, n->body, indent + 1);
      os << pad << "}\n";
      return;
    }
    case StmtKind::Store: {
      auto* n = s.as<StoreNode>();
      os << pad << n->buffer->name << "[";
      print_expr(os, n->index);
      os << "] = ";
      print_expr(os, n->value);
      os << ";\n";
      return;
    }
    case StmtKind::Allocate: {
      auto* n = s.as<AllocateNode>();
      const char* scope = n->buffer->scope == MemoryScope::Stack ? "local" : "heap";
      os << pad << n->buffer->dtype.str() << " " << n->buffer->name << "[" << n->buffer->num_elements() << "];  // "
         << scope << "\n";
      print_stmt(os, n->body, indent);
      return;
    }
    case StmtKind::Seq:
      for (const auto& c : s.as<SeqNode>()->stmts) print_stmt(os, c, indent);
      return;
    case StmtKind::IfThenElse: {
      auto* n = s.as<IfThenElseNode>();
      os << pad << "if (";
      print_expr(os, n->cond);
      os << ") {\n";
      print_stmt(os, n->then_case, indent + 1);
      if (n->else_case) {
        os << pad << "} else {\n";
        print_stmt(os, n->else_case, indent + 1);
      }
      os << pad << "}\n";
      return;
    }
    case StmtKind::LetStmt: {
      auto* n = s.as<LetStmtNode>();
      os << pad << n->var->type.str() << " " << n->var->name << " = ";
      print_expr(os, n->value);
      os << ";\n";
      print_stmt(os, n->body, indent);
      return;
    }
    case StmtKind::Prefetch: {
      auto* n = s.as<PrefetchNode>();
      os << pad << "prefetch(&" << n->buffer->name << "[";
      print_expr(os, n->index);
      os << "]);\n";
      return;
    }
  }
}

}  // namespace

std::string to_string(const Expr& e) {
  std::ostringstream os;
  print_expr(os, e);
  return os.str();
}

std::string to_string(const Stmt& s, int indent) {
  std::ostringstream os;
  print_stmt(os, s, indent);
  return os.str();
}

std::string to_string(const LoweredFunc& f) {
  std::ostringstream os;
  os << "void " << f.name << "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    if (i) os << ", ";
    os << f.args[i]->dtype.str() << " " << f.args[i]->name << "[";
    for (size_t d = 0; d < f.args[i]->shape.size(); ++d) os << (d ? "][" : "") << f.args[i]->shape[d];
    os << "]";
  }
  os << ") {\n";
  print_stmt(os, f.body, 1);
  os << "}\n";
  return os.str();
}

}  // namespace tf::ir

#include "compiler/ir/substitute.h"

#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"

namespace tf::ir {
namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& m) : map_(m) {}
  using IRMutator::mutate;

 protected:
  using IRMutator::visit;
  Expr visit(const VarNode* n, const Expr& self) override {
    auto it = map_.find(n);
    return it == map_.end() ? self : it->second;
  }

 private:
  const VarMap& map_;
};

class VarCollector : public IRVisitor {
 public:
  using IRVisitor::visit;
  std::unordered_set<const VarNode*> vars;

 protected:
  void visit(const VarNode* n) override { vars.insert(n); }
  void visit(const ForNode* n) override {
    vars.insert(n->var.get());
    IRVisitor::visit(n);
  }
};

}  // namespace

Expr substitute(const Expr& e, const VarMap& map) {
  if (map.empty()) return e;
  Substituter s(map);
  return s.mutate(e);
}

Stmt substitute(const Stmt& s, const VarMap& map) {
  if (map.empty()) return s;
  Substituter sub(map);
  return sub.mutate(s);
}

std::unordered_set<const VarNode*> vars_used(const Expr& e) {
  VarCollector c;
  c.visit(e);
  return std::move(c.vars);
}

bool uses_var(const Expr& e, const VarNode* v) { return vars_used(e).count(v) > 0; }

bool uses_var(const Stmt& s, const VarNode* v) {
  VarCollector c;
  c.visit(s);
  return c.vars.count(v) > 0;
}

}  // namespace tf::ir

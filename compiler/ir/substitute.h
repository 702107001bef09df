// Replace variables by expressions, and ask which variables an expression uses.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/ir.h"

namespace tf::ir {

using VarMap = std::unordered_map<const VarNode*, Expr>;

Expr substitute(const Expr& e, const VarMap& map);
Stmt substitute(const Stmt& s, const VarMap& map);

// Which variables an expression or statement reads (loop variables included).
bool uses_var(const Expr& e, const VarNode* v);
bool uses_var(const Stmt& s, const VarNode* v);
std::unordered_set<const VarNode*> vars_used(const Expr& e);

}  // namespace tf::ir

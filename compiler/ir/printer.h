// Shows IR as readable pseudo-C, for `tunefarm lower`, error messages and tests.
#pragma once

#include <string>

#include "compiler/ir/function.h"
#include "compiler/ir/ir.h"

namespace tf::ir {

std::string to_string(const Expr& e);
std::string to_string(const Stmt& s, int indent = 0);
std::string to_string(const LoweredFunc& f);

}  // namespace tf::ir

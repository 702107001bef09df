// Structural equality of expressions, the identity the affine analysis gives its atoms.
#pragma once

#include "compiler/ir/ir.h"

namespace tf::analysis {

// Same computation, node by node (variables and buffers by identity).
bool structurally_equal(const ir::Expr& a, const ir::Expr& b);

}  // namespace tf::analysis

// The op kinds of an elementwise expression by text name and operand count (internal to the
// elementwise_*.cc files: the text, the parser and the builders read the same table).
#pragma once

#include <string>

#include "compiler/ops/elementwise_expr.h"

namespace tf::ops::detail {

struct KindInfo {
  ElementwiseKind kind;
  const char* name;  // the text name: letters and digits only
  int arity;         // operand expressions; Pow's constant exponent and Clip's bounds are not counted
};

// Null for Input and Constant, which have no name.
const KindInfo* kind_info(ElementwiseKind kind);
// Null for a name no kind has.
const KindInfo* kind_info(const std::string& name);

// Kinds whose value is 1 or 0 (comparisons and logic): a Where on one selects on the condition
// itself instead of comparing 1.0 with 0.
bool is_predicate(ElementwiseKind kind);

// The shortest decimal that reads back to the same float32.
std::string constant_text(double v);

}  // namespace tf::ops::detail

// Short builders for elementwise expressions in tests: x(0) + c(2) reads as the formula it builds.
#pragma once

#include <utility>

#include "compiler/ops/elementwise_expr.h"

namespace tf::testing_support {

inline ops::ElementwiseExprPtr x(int i) { return ops::ew_input(i); }
inline ops::ElementwiseExprPtr c(double v) { return ops::ew_constant(v); }
inline ops::ElementwiseExprPtr un(ops::ElementwiseKind k, ops::ElementwiseExprPtr a) {
  return ops::ew_unary(k, std::move(a));
}
inline ops::ElementwiseExprPtr bin(ops::ElementwiseKind k, ops::ElementwiseExprPtr a, ops::ElementwiseExprPtr b) {
  return ops::ew_binary(k, std::move(a), std::move(b));
}

}  // namespace tf::testing_support

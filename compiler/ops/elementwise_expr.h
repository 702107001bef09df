// The expression of a fused elementwise chain: inputs x0, x1, ..., float constants, and the ops a
// model's elementwise tail uses; cast(x0,int64) changes the element type. One canonical text per expression ("relu(add(x0,mul(x1,0.5)))"),
// so two identical chains name one workload and share one kernel; parse() reads it back.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "support/dtype.h"

namespace tf::ops {

enum class ElementwiseKind : uint8_t {
  Input, Constant,
  Add, Sub, Mul, Div, Max, Min,                    // binary
  Neg, Relu, Sigmoid, Erf, Tanh, Sqrt, Exp,        // unary
  Pow,                                             // unary with a constant exponent
  Clip,                                            // unary with constant bounds lo, hi
  Cast,                                            // unary to the element type `to`
};

class ElementwiseExpr;
using ElementwiseExprPtr = std::shared_ptr<const ElementwiseExpr>;

class ElementwiseExpr {
 public:
  ElementwiseKind kind;
  int input = 0;                 // Input: which x
  double value = 0;              // Constant (as float32), Pow's exponent, Clip's lo
  double value2 = 0;             // Clip's hi
  DType to = DType::Float32;     // Cast's target
  std::vector<ElementwiseExprPtr> args;

  // "add(x0,mul(x1,0.5))": constants as the shortest text that reads back to the same float32.
  std::string text() const;
  // The number of inputs: one more than the largest input index used.
  int num_inputs() const;
  // The IR of the expression, each input read by `input(i)` (a bool input as an IR bool).
  ir::Expr to_ir(const std::function<ir::Expr(int)>& input) const;
  // Double-precision value and a bound on the float32 kernel's error, from inputs (float values).
  struct Bounded {
    double value, error;
  };
  Bounded evaluate(const std::vector<double>& inputs) const;
};

// Builders. Throw tf::CompileError for a negative input index, a non-finite constant, a clip with
// lo > hi.
ElementwiseExprPtr ew_input(int index);
ElementwiseExprPtr ew_constant(double v);
ElementwiseExprPtr ew_binary(ElementwiseKind kind, ElementwiseExprPtr a, ElementwiseExprPtr b);
ElementwiseExprPtr ew_unary(ElementwiseKind kind, ElementwiseExprPtr a);
ElementwiseExprPtr ew_pow(ElementwiseExprPtr a, double exponent);
ElementwiseExprPtr ew_clip(ElementwiseExprPtr a, double lo, double hi);
// ONNX Cast: float to an integer truncates toward zero (NaN and values beyond the target's range
// give an unspecified value, as in ONNX), anything to bool is x != 0, a bool is 0 or 1.
ElementwiseExprPtr ew_cast(ElementwiseExprPtr a, DType to);

// Reads text() back; throws tf::CompileError naming the position of what it cannot read.
ElementwiseExprPtr parse_elementwise(const std::string& text);

}  // namespace tf::ops

// The expression of a fused elementwise chain: inputs x0, x1, ..., float constants, and the ops a
// model's elementwise tail uses; cast(x0,int64) changes the element type. One canonical text per
// expression ("relu(add(x0,mul(x1,0.5)))"), so two identical chains name one workload and share one kernel; parse()
// reads it back.
//
// Kinds and their text names (float32 in, float32 out; "true" is any value other than 0):
//   binary   add sub mul div max min, pow(x,y) (x^y as C's pow), mod (Python's %: the divisor's
//            sign) fmod (C's fmod), gt lt eq ge le (1 or 0; false with NaN), and or xor
//   unary    neg relu sigmoid erf tanh sqrt exp abs log floor ceil round (halves to even) sign
//            reciprocal sin cos tan asin acos atan sinh cosh asinh acosh atanh softplus softsign
//            expm1 not
//   constant pow(x,2.5) (exponent), clip(x,lo,hi) (bounds)
//   ternary  where(c,a,b): a where c is true, else b
// Each kernel's accuracy is in the bound evaluate() returns: the transcendental ones within a few
// ulp (codegen/fast_math.h, ir/math_composite.h); see there for the domains (sin, cos and tan are
// NaN beyond |x| = 2^28).
//
// ONNX ops with no kind of their own are compositions (the graph side builds them). Accuracy
// measured over [-20, 20] and magnitudes to 1e4 (tests/elementwise_math_test.cc): ulps for results
// above 1e-30, else the largest absolute error; all far inside ONNX's 1e-4 |y| + 1e-6.
//   LeakyRelu(a)        where(lt(x,0),mul(x,a),x)                          0.5 ulp
//   PRelu               where(lt(x0,0),mul(x0,x1),x0)                      0.5 ulp
//   ThresholdedRelu(a)  where(gt(x,a),x,0)                                 exact
//   Elu(a)              where(lt(x,0),mul(expm1(x),a),x)                   <= 1.5 ulp
//   Selu(a,g)           where(gt(x,0),mul(x,g),mul(expm1(x),a*g))          <= 2.5 ulp
//   Celu(a)             where(gt(x,0),x,mul(expm1(div(x,a)),a))            <= 1.5 ulp
//   HardSigmoid(a,b)    clip(add(mul(x,a),b),0,1)                          abs 3e-8
//   HardSwish           mul(x,clip(add(mul(x,0.166666672),0.5),0,1))       abs 2.3e-7 (cancels near -3)
//   Mish                mul(x,tanh(softplus(x)))                           <= 4.5 ulp
//   Gelu                mul(mul(x,0.5),add(1,erf(mul(x,0.707106769))))     abs 4.4e-7 (1 + erf cancels, x < 0)
//   Gelu (tanh)         mul(mul(x,0.5),add(1,tanh(mul(add(x,mul(pow(x,3),0.044715)),0.797884583))))
//                                                                          abs 4.2e-7
//   Sum, Mean, Min, Max add/max/min chains; Mean divides the sum by n
//   Clip (bounds as computed inputs)  min(max(x,lo),hi)
//   IsNaN               not(eq(x,x))
//   IsInf               gt(abs(x),3.40282347e+38); one side: gt(x,3.40282347e+38), lt(x,-3.40282347e+38)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "support/dtype.h"

namespace tf::ops {

// clang-format off
enum class ElementwiseKind : uint8_t {
  Input, Constant,
  Add, Sub, Mul, Div, Max, Min,                    // binary
  Neg, Relu, Sigmoid, Erf, Tanh, Sqrt, Exp,        // unary
  Pow,                                             // a constant exponent (value), or a computed one (args[1])
  Clip,                                            // unary with constant bounds lo, hi
  Abs, Log, Floor, Ceil, Round, Sign, Reciprocal,  // unary
  Sin, Cos, Tan, Asin, Acos, Atan,
  Sinh, Cosh, Asinh, Acosh, Atanh,
  Softplus, Softsign, Expm1, Not,
  Greater, Less, Equal, GreaterOrEqual, LessOrEqual,  // binary, 1 or 0
  And, Or, Xor,
  Mod, Fmod,
  Where,                                           // ternary: args[0] != 0 ? args[1] : args[2]
  Cast,                                            // unary to the element type `to`
  Fence,                                           // unary: the value as stored, no multiply-add across it
};
// clang-format on

class ElementwiseExpr;
using ElementwiseExprPtr = std::shared_ptr<const ElementwiseExpr>;

class ElementwiseExpr {
 public:
  ElementwiseKind kind;
  int input = 0;              // Input: which x
  double value = 0;           // Constant (as float32), a constant Pow's exponent, Clip's lo
  double value2 = 0;          // Clip's hi
  DType to = DType::Float32;  // Cast's target
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
// lo > hi, a kind of another arity, a null operand.
ElementwiseExprPtr ew_input(int index);
ElementwiseExprPtr ew_constant(double v);
// Pow with a Constant exponent is ew_pow: one expression, one text ("pow(x0,2)").
ElementwiseExprPtr ew_binary(ElementwiseKind kind, ElementwiseExprPtr a, ElementwiseExprPtr b);
ElementwiseExprPtr ew_unary(ElementwiseKind kind, ElementwiseExprPtr a);
ElementwiseExprPtr ew_pow(ElementwiseExprPtr a, double exponent);
ElementwiseExprPtr ew_clip(ElementwiseExprPtr a, double lo, double hi);
ElementwiseExprPtr ew_where(ElementwiseExprPtr condition, ElementwiseExprPtr if_true, ElementwiseExprPtr if_false);
// ONNX Cast: float to an integer truncates toward zero (NaN and values beyond the target's range
// give an unspecified value, as in ONNX), anything to bool is x != 0, a bool is 0 or 1.
ElementwiseExprPtr ew_cast(ElementwiseExprPtr a, DType to);

// Reads text() back; throws tf::CompileError naming the position of what it cannot read.
ElementwiseExprPtr parse_elementwise(const std::string& text);

}  // namespace tf::ops

// ElementwiseExpr::to_ir: each kind as IR arithmetic, intrinsics (ir/math.h) and compositions
// (ir/math_composite.h), all of which vectorize.
#include <utility>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ir/math_composite.h"
#include "compiler/ops/elementwise_expr.h"
#include "compiler/ops/elementwise_kinds.h"
#include "compiler/ops/tensor_dtype.h"

namespace tf::ops {
namespace {

using Kind = ElementwiseKind;
using ir::Expr;
using Load = std::function<Expr(int)>;

Expr f32(double v) { return ir::make_float(v, ir::DataType::float32()); }
// v in a's type: the constants of a float64 expression are float64.
Expr like(const Expr& a, double v) { return ir::make_const(a.type(), v); }

// Arguments i and j in one type: a literal (exact in float32) beside a float64 value is a float64
// literal of the same value, so nothing rounds and no other mix is silently converted.
std::pair<Expr, Expr> operands(const ElementwiseExpr& e, const Load& load, size_t i, size_t j) {
  Expr a = e.args[i]->to_ir(load);
  Expr b = e.args[j]->to_ir(load);
  if (a.type() != b.type() && a.type().is_float() && b.type().is_float()) {
    if (e.args[i]->kind == Kind::Constant)
      a = like(b, e.args[i]->value);
    else if (e.args[j]->kind == Kind::Constant)
      b = like(a, e.args[j]->value);
  }
  return {a, b};
}

Expr predicate(const ElementwiseExpr& e, const Load& load);

// The truth of e as a bool: a comparison or logic op directly, a bool input or cast as it is,
// anything else as e != 0 (NaN true).
Expr truth(const ElementwiseExpr& e, const Load& load) {
  if (detail::is_predicate(e.kind)) return predicate(e, load);
  Expr v = e.to_ir(load);
  if (v.type().is_bool()) return v;
  return v != ir::make_const(v.type(), 0);
}

Expr predicate(const ElementwiseExpr& e, const Load& load) {
  auto truth_of = [&](size_t i) { return truth(*e.args[i], load); };
  switch (e.kind) {
    case Kind::Greater: {
      auto [a, b] = operands(e, load, 0, 1);
      return a > b;
    }
    case Kind::Less: {
      auto [a, b] = operands(e, load, 0, 1);
      return a < b;
    }
    case Kind::Equal: {
      auto [a, b] = operands(e, load, 0, 1);
      return a == b;
    }
    case Kind::GreaterOrEqual: {
      auto [a, b] = operands(e, load, 0, 1);
      return a >= b;
    }
    case Kind::LessOrEqual: {
      auto [a, b] = operands(e, load, 0, 1);
      return a <= b;
    }
    case Kind::And: return ir::logical_and(truth_of(0), truth_of(1));
    case Kind::Or: return ir::logical_or(truth_of(0), truth_of(1));
    case Kind::Xor: return ir::make_binary(ir::BinaryOp::NE, truth_of(0), truth_of(1));
    case Kind::Not: return ir::make_not(truth_of(0));
    default: throw CompileError("elementwise: " + e.text() + " is not a predicate");
  }
}

Expr unary(Kind kind, const Expr& a) {
  switch (kind) {
    case Kind::Neg: return like(a, 0.0) - a;
    case Kind::Relu: return ir::max(a, like(a, 0.0));
    case Kind::Sigmoid: return ir::sigmoid(a);
    case Kind::Erf: return ir::erf(a);
    case Kind::Tanh: return ir::tanh(a);
    case Kind::Sqrt: return ir::sqrt(a);
    case Kind::Exp: return ir::exp(a);
    case Kind::Abs: return ir::abs(a);
    case Kind::Log: return ir::log(a);
    case Kind::Floor: return ir::floor(a);
    case Kind::Ceil: return ir::ceil(a);
    case Kind::Round: return ir::round(a);
    case Kind::Fence: return ir::fence(a);
    case Kind::Sign: return ir::sign(a);
    case Kind::Reciprocal: return like(a, 1.0) / a;
    case Kind::Sin: return ir::sin(a);
    case Kind::Cos: return ir::cos(a);
    case Kind::Tan: return ir::tan(a);
    case Kind::Asin: return ir::asin(a);
    case Kind::Acos: return ir::acos(a);
    case Kind::Atan: return ir::atan(a);
    case Kind::Sinh: return ir::sinh(a);
    case Kind::Cosh: return ir::cosh(a);
    case Kind::Asinh: return ir::asinh(a);
    case Kind::Acosh: return ir::acosh(a);
    case Kind::Atanh: return ir::atanh(a);
    case Kind::Softplus: return ir::softplus(a);
    case Kind::Softsign: return ir::softsign(a);
    case Kind::Expm1: return ir::expm1(a);
    default: throw CompileError("elementwise: unknown unary kind");
  }
}

Expr binary(Kind kind, const Expr& a, const Expr& b) {
  switch (kind) {
    case Kind::Add: return a + b;
    case Kind::Sub: return a - b;
    case Kind::Mul: return a * b;
    case Kind::Div: return a / b;
    case Kind::Max: return ir::max(a, b);
    case Kind::Min: return ir::min(a, b);
    case Kind::Pow: return ir::pow(a, b);
    case Kind::Mod: return ir::floor_mod(a, b);
    case Kind::Fmod: return ir::fmod(a, b);
    default: throw CompileError("elementwise: unknown binary kind");
  }
}

}  // namespace

ir::Expr ElementwiseExpr::to_ir(const Load& load) const {
  switch (kind) {
    case Kind::Input: return load(input);
    case Kind::Constant: return f32(value);
    case Kind::Clip: return ir::min(ir::max(args[0]->to_ir(load), f32(value)), f32(value2));
    case Kind::Cast:
      return ir::make_cast(to == DType::Bool ? ir::DataType::boolean() : kernel_type(to), args[0]->to_ir(load));
    case Kind::Where: {
      const Expr c = truth(*args[0], load);
      auto [a, b] = operands(*this, load, 1, 2);
      return ir::make_select(c, a, b);
    }
    default: break;
  }
  if (detail::is_predicate(kind)) return ir::make_select(predicate(*this, load), f32(1.0), f32(0.0));
  if (kind == Kind::Pow && args.size() == 1) return ir::pow_const(args[0]->to_ir(load), value);
  if (args.size() == 1) return unary(kind, args[0]->to_ir(load));
  auto [a, b] = operands(*this, load, 0, 1);
  return binary(kind, a, b);
}

}  // namespace tf::ops

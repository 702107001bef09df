// The kinds' table, the canonical text and the builders. The IR is in elementwise_ir.cc, the
// double-precision value and its bound in elementwise_eval.cc, the parser in elementwise_parse.cc.
#include "compiler/ops/elementwise_expr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "compiler/error.h"
#include "compiler/ops/elementwise_kinds.h"
#include "compiler/ops/tensor_dtype.h"

namespace tf::ops {
namespace detail {
namespace {

using Kind = ElementwiseKind;

// Names are part of workload keys and tuning records: an existing one never changes.
constexpr KindInfo kKinds[] = {
    {Kind::Add, "add", 2},           {Kind::Sub, "sub", 2},
    {Kind::Mul, "mul", 2},           {Kind::Div, "div", 2},
    {Kind::Max, "max", 2},           {Kind::Min, "min", 2},
    {Kind::Neg, "neg", 1},           {Kind::Relu, "relu", 1},
    {Kind::Sigmoid, "sigmoid", 1},   {Kind::Erf, "erf", 1},
    {Kind::Tanh, "tanh", 1},         {Kind::Sqrt, "sqrt", 1},
    {Kind::Exp, "exp", 1},           {Kind::Pow, "pow", 1},
    {Kind::Clip, "clip", 1},         {Kind::Abs, "abs", 1},
    {Kind::Log, "log", 1},           {Kind::Floor, "floor", 1},
    {Kind::Ceil, "ceil", 1},         {Kind::Round, "round", 1},
    {Kind::Sign, "sign", 1},         {Kind::Reciprocal, "reciprocal", 1},
    {Kind::Sin, "sin", 1},           {Kind::Cos, "cos", 1},
    {Kind::Tan, "tan", 1},           {Kind::Asin, "asin", 1},
    {Kind::Acos, "acos", 1},         {Kind::Atan, "atan", 1},
    {Kind::Sinh, "sinh", 1},         {Kind::Cosh, "cosh", 1},
    {Kind::Asinh, "asinh", 1},       {Kind::Acosh, "acosh", 1},
    {Kind::Atanh, "atanh", 1},       {Kind::Softplus, "softplus", 1},
    {Kind::Softsign, "softsign", 1}, {Kind::Expm1, "expm1", 1},
    {Kind::Not, "not", 1},           {Kind::Greater, "gt", 2},
    {Kind::Less, "lt", 2},           {Kind::Equal, "eq", 2},
    {Kind::GreaterOrEqual, "ge", 2}, {Kind::LessOrEqual, "le", 2},
    {Kind::And, "and", 2},           {Kind::Or, "or", 2},
    {Kind::Xor, "xor", 2},           {Kind::Mod, "mod", 2},
    {Kind::Fmod, "fmod", 2},         {Kind::Where, "where", 3},
    {Kind::Cast, "cast", 1},         {Kind::Fence, "fence", 1},
};

}  // namespace

const KindInfo* kind_info(Kind k) {
  for (const auto& info : kKinds) {
    if (info.kind == k) return &info;
  }
  return nullptr;
}

const KindInfo* kind_info(const std::string& name) {
  for (const auto& info : kKinds) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

bool is_predicate(Kind k) {
  switch (k) {
    case Kind::Greater:
    case Kind::Less:
    case Kind::Equal:
    case Kind::GreaterOrEqual:
    case Kind::LessOrEqual:
    case Kind::And:
    case Kind::Or:
    case Kind::Xor:
    case Kind::Not: return true;
    default: return false;
  }
}

// The shortest decimal that reads back to the same float32: equal constants print equally.
std::string constant_text(double v) {
  const float f = static_cast<float>(v);
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return buf;
}

}  // namespace detail

namespace {

using Kind = ElementwiseKind;
using detail::constant_text;
using detail::kind_info;

void check_finite(double v, const std::string& what) {
  if (!std::isfinite(v)) throw CompileError("elementwise: " + what + " must be finite");
}

// A node of `kind` over `operands`, each checked non-null; `arity` says what the caller built.
ElementwiseExprPtr make_node(Kind kind, std::vector<ElementwiseExprPtr> operands, const char* arity) {
  const detail::KindInfo* info = kind_info(kind);
  if (!info || info->arity != static_cast<int>(operands.size())) {
    throw CompileError(std::string("elementwise: ") + (info ? info->name : "input or constant") + " is not a " + arity +
                       " op");
  }
  for (const auto& a : operands) {
    if (!a) throw CompileError(std::string("elementwise: ") + info->name + " of a null operand");
  }
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = kind;
  e->args = std::move(operands);
  return e;
}

}  // namespace

std::string ElementwiseExpr::text() const {
  switch (kind) {
    case Kind::Input: return "x" + std::to_string(input);
    case Kind::Constant: return constant_text(value);
    default: break;
  }
  std::string t = std::string(kind_info(kind)->name) + "(";
  for (size_t i = 0; i < args.size(); ++i) t += (i ? "," : "") + args[i]->text();
  if (kind == Kind::Pow && args.size() == 1) t += "," + constant_text(value);
  if (kind == Kind::Clip) t += "," + constant_text(value) + "," + constant_text(value2);
  if (kind == Kind::Cast) t += std::string(",") + dtype_name(to);
  return t + ")";
}

int ElementwiseExpr::num_inputs() const {
  int n = kind == Kind::Input ? input + 1 : 0;
  for (const auto& a : args) n = std::max(n, a->num_inputs());
  return n;
}

ElementwiseExprPtr ew_input(int index) {
  if (index < 0 || index > 63)
    throw CompileError("elementwise: input index " + std::to_string(index) + " is outside [0, 63]");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Input;
  e->input = index;
  return e;
}

ElementwiseExprPtr ew_constant(double v) {
  check_finite(v, "a constant");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Constant;
  e->value = round_to_float(v);
  return e;
}

ElementwiseExprPtr ew_binary(Kind kind, ElementwiseExprPtr a, ElementwiseExprPtr b) {
  if (kind == Kind::Pow) {
    if (!a || !b) throw CompileError("elementwise: pow of a null operand");
    if (b->kind == Kind::Constant) return ew_pow(std::move(a), b->value);
    auto e = std::make_shared<ElementwiseExpr>();
    e->kind = Kind::Pow;
    e->args = {std::move(a), std::move(b)};
    return e;
  }
  return make_node(kind, {std::move(a), std::move(b)}, "binary");
}

ElementwiseExprPtr ew_unary(Kind kind, ElementwiseExprPtr a) {
  if (kind == Kind::Pow || kind == Kind::Clip || kind == Kind::Cast) {
    throw CompileError("elementwise: pow, clip and cast take more than an operand: ew_pow, ew_clip, ew_cast");
  }
  return make_node(kind, {std::move(a)}, "unary");
}

ElementwiseExprPtr ew_where(ElementwiseExprPtr condition, ElementwiseExprPtr if_true, ElementwiseExprPtr if_false) {
  return make_node(Kind::Where, {std::move(condition), std::move(if_true), std::move(if_false)}, "ternary");
}

ElementwiseExprPtr ew_cast(ElementwiseExprPtr a, DType to) {
  auto e = std::const_pointer_cast<ElementwiseExpr>(make_node(Kind::Cast, {std::move(a)}, "unary"));
  e->to = to;
  return e;
}

ElementwiseExprPtr ew_pow(ElementwiseExprPtr a, double exponent) {
  check_finite(exponent, "pow's exponent");
  if (!a) throw CompileError("elementwise: pow of a null operand");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Pow;
  e->value = round_to_float(exponent);
  e->args = {std::move(a)};
  return e;
}

ElementwiseExprPtr ew_clip(ElementwiseExprPtr a, double lo, double hi) {
  check_finite(lo, "clip's lo");
  check_finite(hi, "clip's hi");
  if (lo > hi)
    throw CompileError("elementwise: clip's lo " + constant_text(lo) + " is above its hi " + constant_text(hi));
  if (!a) throw CompileError("elementwise: clip of a null operand");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Clip;
  e->value = round_to_float(lo);
  e->value2 = round_to_float(hi);
  e->args = {std::move(a)};
  return e;
}

}  // namespace tf::ops

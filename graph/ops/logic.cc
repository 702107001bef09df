// Ops whose output is a bool: comparisons (Greater, Less, Equal, GreaterOrEqual, LessOrEqual),
// logic (And, Or, Xor, Not), IsNaN and IsInf; and Where, which selects by a bool. Each is one
// elementwise kernel: a comparison or logic kind cast to bool, stored as one byte 0/1.
#include <cfloat>
#include <cmath>

#include "graph/ops/elementwise.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using K = ops::ElementwiseKind;

bool numeric(DType t) { return t == DType::Float32 || t == DType::Float64 || t == DType::Int64 || t == DType::Int32; }
DType to_bool(const Node&, const std::vector<DType>&) { return DType::Bool; }
ops::ElementwiseExprPtr as_bool(ops::ElementwiseExprPtr e) { return ops::ew_cast(std::move(e), DType::Bool); }

elementwise::Spec compare(const std::string& name, std::vector<int> versions, K kind, bool (*f)(double, double),
                          bool bools_too) {
  elementwise::Spec s;
  s.name = name;
  s.versions = std::move(versions);
  s.min_inputs = s.max_inputs = 2;
  s.f = [f](const std::vector<double>& a) { return f(a[0], a[1]) ? 1.0 : 0.0; };
  s.i = [f](const Node&, const std::vector<int64_t>& a) {
    return int64_t{f(static_cast<double>(a[0]), static_cast<double>(a[1]))};
  };
  s.expression = [kind](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto a = args.value(n.inputs.at(0));
    auto b = args.value(n.inputs.at(1));
    return as_bool(ops::ew_binary(kind, a, b));
  };
  s.output_dtype = to_bool;
  s.kernel_takes = [bools_too](size_t, DType t) { return numeric(t) || (bools_too && t == DType::Bool); };
  return s;
}

elementwise::Spec logic(const std::string& name, K kind, bool (*f)(bool, bool)) {
  elementwise::Spec s;
  s.name = name;
  s.versions = {7};
  s.min_inputs = s.max_inputs = 2;
  s.f = [f](const std::vector<double>& a) { return f(a[0] != 0, a[1] != 0) ? 1.0 : 0.0; };
  s.i = [f](const Node&, const std::vector<int64_t>& a) { return int64_t{f(a[0] != 0, a[1] != 0)}; };
  s.expression = [kind](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto a = args.value(n.inputs.at(0));
    auto b = args.value(n.inputs.at(1));
    return as_bool(ops::ew_binary(kind, a, b));
  };
  s.output_dtype = to_bool;
  s.kernel_takes = [](size_t, DType t) { return t == DType::Bool; };
  return s;
}

elementwise::Spec not_op() {
  elementwise::Spec s;
  s.name = "Not";
  s.versions = {1};
  s.f = [](const std::vector<double>& a) { return a[0] != 0 ? 0.0 : 1.0; };
  s.i = [](const Node&, const std::vector<int64_t>& a) { return int64_t{a[0] == 0}; };
  s.expression = [](ElementwiseArgs& args, const Graph&, const Node& n) {
    return as_bool(ops::ew_unary(K::Not, args.value(n.inputs.at(0))));
  };
  s.output_dtype = to_bool;
  s.kernel_takes = [](size_t, DType t) { return t == DType::Bool; };
  return s;
}

elementwise::Spec is_nan() {
  elementwise::Spec s;
  s.name = "IsNaN";
  s.versions = {9, 13, 20};
  s.f = [](const std::vector<double>& a) { return std::isnan(a[0]) ? 1.0 : 0.0; };
  s.expression = [](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto x = args.value(n.inputs.at(0));
    return as_bool(ops::ew_unary(K::Not, ops::ew_binary(K::Equal, x, x)));
  };
  s.output_dtype = to_bool;
  return s;
}

OpDef is_inf() {
  elementwise::Spec s;
  s.name = "IsInf";
  s.versions = {10, 20};
  auto sides = [](const Node& n) {
    return std::pair<bool, bool>{n.attr_int("detect_negative", 1) != 0, n.attr_int("detect_positive", 1) != 0};
  };
  // f has no node to read the sides from: the fold below gives it them.
  s.f = [](const std::vector<double>& a) { return std::isinf(a[0]) ? 1.0 : 0.0; };
  s.expression = [sides](ElementwiseArgs& args, const Graph&, const Node& n) {
    const auto [negative, positive] = sides(n);
    auto x = args.value(n.inputs.at(0));
    auto above = ops::ew_binary(K::Greater, x, ops::ew_constant(FLT_MAX));
    auto below = ops::ew_binary(K::Less, x, ops::ew_constant(-FLT_MAX));
    if (negative && positive) return as_bool(ops::ew_binary(K::Or, above, below));
    if (positive) return as_bool(above);
    if (negative) return as_bool(below);
    return as_bool(ops::ew_binary(K::Less, x, x));  // never true: NaN compares false too
  };
  s.output_dtype = to_bool;
  OpDef d = elementwise::make_op(s);
  d.attributes = {"detect_negative", "detect_positive"};
  d.fold = [sides, s](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    const auto [negative, positive] = sides(n);
    elementwise::Spec one = s;
    one.f = [negative = negative, positive = positive](const std::vector<double>& a) {
      return (positive && a[0] == INFINITY) || (negative && a[0] == -INFINITY) ? 1.0 : 0.0;
    };
    const Value& out = g.value(n.outputs.at(0));
    return elementwise::evaluate(n, inputs, out.shape, out.dtype, one);
  };
  return d;
}

elementwise::Spec where() {
  elementwise::Spec s;
  s.name = "Where";
  s.versions = {9, 16};
  s.min_inputs = s.max_inputs = 3;
  s.f = [](const std::vector<double>& a) { return a[0] != 0 ? a[1] : a[2]; };
  s.i = [](const Node&, const std::vector<int64_t>& a) { return a[0] != 0 ? a[1] : a[2]; };
  s.expression = [](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto c = args.value(n.inputs.at(0));
    auto a = args.value(n.inputs.at(1));
    auto b = args.value(n.inputs.at(2));
    return ops::ew_where(c, a, b);
  };
  s.output_dtype = [](const Node&, const std::vector<DType>& in) { return in.at(1); };
  s.kernel_takes = [](size_t i, DType t) { return i == 0 ? t == DType::Bool : numeric(t); };
  s.typed_apart = {0};
  return s;
}

bool gt(double a, double b) { return a > b; }
bool lt(double a, double b) { return a < b; }
bool eq(double a, double b) { return a == b; }
bool ge(double a, double b) { return a >= b; }
bool le(double a, double b) { return a <= b; }
bool and_(bool a, bool b) { return a && b; }
bool or_(bool a, bool b) { return a || b; }
bool xor_(bool a, bool b) { return a != b; }

}  // namespace

void add_logic_ops(std::vector<OpDef>& ops) {
  ops.push_back(elementwise::make_op(compare("Greater", {7, 9, 13}, K::Greater, gt, false)));
  ops.push_back(elementwise::make_op(compare("Less", {7, 9, 13}, K::Less, lt, false)));
  ops.push_back(elementwise::make_op(compare("Equal", {7, 11, 13, 19}, K::Equal, eq, true)));
  ops.push_back(elementwise::make_op(compare("GreaterOrEqual", {12, 16}, K::GreaterOrEqual, ge, false)));
  ops.push_back(elementwise::make_op(compare("LessOrEqual", {12, 16}, K::LessOrEqual, le, false)));
  ops.push_back(elementwise::make_op(logic("And", K::And, and_)));
  ops.push_back(elementwise::make_op(logic("Or", K::Or, or_)));
  ops.push_back(elementwise::make_op(logic("Xor", K::Xor, xor_)));
  ops.push_back(elementwise::make_op(not_op()));
  ops.push_back(elementwise::make_op(is_nan()));
  ops.push_back(is_inf());
  ops.push_back(elementwise::make_op(where()));
}

}  // namespace tf::graph

// Elementwise ops of two or more inputs, broadcast numpy-style: Add, Sub, Mul, Div, Pow, Mod, and
// the variadic Max, Min, Sum, Mean. Versions before 7 broadcast by their `broadcast`/`axis`
// attributes, normalized to 7's form. Add, Sub, Mul, Max, Min, Mod and Pow also run on int32 and
// int64 tensors.
#include <algorithm>
#include <cmath>

#include "graph/ops/elementwise.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using K = ops::ElementwiseKind;

bool numeric(DType t) { return t == DType::Float32 || t == DType::Int64 || t == DType::Int32; }
// The kernels of IEEE arithmetic, Min/Max and Mod compute float64 as they do float32.
bool float_kernel(size_t, DType t) { return t == DType::Float32 || t == DType::Float64; }
bool numeric_or_float64(size_t, DType t) { return numeric(t) || t == DType::Float64; }

elementwise::Spec binary(const std::string& name, std::vector<int> versions, K kind, double (*f)(double, double)) {
  elementwise::Spec s;
  s.name = name;
  s.versions = std::move(versions);
  s.min_inputs = s.max_inputs = 2;
  s.f = [f](const std::vector<double>& a) { return f(a[0], a[1]); };
  s.expression = [kind](ElementwiseArgs& args, const Graph&, const Node& n) {
    // Apart: the order a call evaluates its arguments in is unspecified, and value() numbers the
    // kernel's arguments as it first meets them.
    auto a = args.value(n.inputs.at(0));
    auto b = args.value(n.inputs.at(1));
    return ops::ew_binary(kind, a, b);
  };
  return s;
}

// Max, Min, Sum, Mean: one input or more, folded left to right (Mean then scaled).
elementwise::Spec variadic(const std::string& name, std::vector<int> versions, K kind, bool mean) {
  elementwise::Spec s;
  s.name = name;
  s.versions = std::move(versions);
  s.max_inputs = 1024;
  s.f = [kind, mean](const std::vector<double>& a) {
    double acc = a[0];
    for (size_t i = 1; i < a.size(); ++i)
      acc = kind == K::Max ? std::max(acc, a[i]) : kind == K::Min ? std::min(acc, a[i]) : acc + a[i];
    return mean ? acc / static_cast<double>(a.size()) : acc;
  };
  s.expression = [kind, mean](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto acc = args.value(n.inputs.at(0));
    for (size_t i = 1; i < n.inputs.size(); ++i) acc = ops::ew_binary(kind, acc, args.value(n.inputs[i]));
    if (mean) acc = ops::ew_binary(K::Mul, acc, ops::ew_constant(1.0 / static_cast<double>(n.inputs.size())));
    return acc;
  };
  return s;
}

double add_(double a, double b) { return a + b; }
double sub_(double a, double b) { return a - b; }
double mul_(double a, double b) { return a * b; }
double div_(double a, double b) { return a / b; }
double pow_(double a, double b) { return std::pow(a, b); }

int64_t int_div(const Node& n, int64_t a, int64_t b) {
  if (b == 0) rules::fail(n, "integer division by zero in a constant");
  return a / b;
}

// Mod: Python's % (the divisor's sign) on integers, C's fmod with fmod=1 (required for floats).
OpDef mod() {
  elementwise::Spec s = binary("Mod", {10, 13}, K::Mod, [](double a, double b) { return std::fmod(a, b); });
  s.i = [](const Node& n, const std::vector<int64_t>& v) {
    if (v[1] == 0) rules::fail(n, "integer modulo by zero in a constant");
    const int64_t r = v[0] % v[1];
    return n.attr_int("fmod", 0) != 0 || r == 0 || (r < 0) == (v[1] < 0) ? r : r + v[1];
  };
  s.expression = [](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto a = args.value(n.inputs.at(0));
    auto b = args.value(n.inputs.at(1));
    return ops::ew_binary(n.attr_int("fmod", 0) != 0 ? K::Fmod : K::Mod, a, b);
  };
  // Integers computed in double (floor_mod, fmod): exact while |x / y| < 2^29.
  s.kernel_takes = numeric_or_float64;
  OpDef d = elementwise::make_op(s);
  d.attributes = {"fmod"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    const int64_t f = n.attr_int("fmod", 0);
    if (f != 0 && f != 1) return "attribute 'fmod' = " + std::to_string(f) + " is not 0 or 1";
    return std::nullopt;
  };
  return d;
}

// Versions before 7 broadcast only with broadcast=1, and only B onto A: B's shape a contiguous run
// of A's starting at `axis` (a suffix when unset), or one element. Canonical (as from 7): B
// reshaped with trailing 1s so numpy's right alignment puts it at `axis`.
std::vector<Node> normalize_old_broadcast(Graph& g, Node n, const OpVersion& v) {
  if (v.since >= 7) return {std::move(n)};
  const bool broadcast = n.attr_int("broadcast", 0) != 0;
  const bool has_axis = n.has("axis");
  const int64_t axis_attr = n.attr_int("axis", 0);
  n.attrs.erase("broadcast");
  n.attrs.erase("axis");
  const Shape a = rules::in(g, n, 0).shape, b = rules::in(g, n, 1).shape;
  if (!broadcast) {
    if (a != b)
      rules::fail(n, "input shapes " + shape_str(a) + " and " + shape_str(b) +
                         " differ and attribute 'broadcast' is 0 (version " + std::to_string(v.since) +
                         " broadcasts only with broadcast=1)");
    return {std::move(n)};
  }
  const int64_t ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  if (rb > ra)
    rules::fail(n, "input 1 " + shape_str(b) + " has a higher rank than input 0 " + shape_str(a) + " (version " +
                       std::to_string(v.since) + " broadcasts input 1 onto input 0)");
  if (element_count(b) == 1) return {std::move(n)};
  const int64_t axis = has_axis ? (axis_attr < 0 ? axis_attr + ra : axis_attr) : ra - rb;
  if (axis < 0 || axis + rb > ra)
    rules::fail(n, "attribute 'axis' = " + std::to_string(axis_attr) + " puts input 1 " + shape_str(b) +
                       " outside input 0 " + shape_str(a));
  for (int64_t k = 0; k < rb; ++k) {
    if (b[k] != 1 && b[k] != a[axis + k])
      rules::fail(n, "input 1 " + shape_str(b) + " does not match input 0 " + shape_str(a) + " from axis " +
                         std::to_string(axis));
  }
  if (axis + rb == ra) return {std::move(n)};
  Shape aligned = b;
  aligned.insert(aligned.end(), ra - axis - rb, 1);
  std::vector<Node> nodes;
  n.inputs[1] = rules::reshape_to(g, n.inputs[1], aligned, nodes);
  nodes.push_back(std::move(n));
  return nodes;
}

// Add, Sub, Mul, Div (1, 6) and Pow (1): the old broadcast attributes, and consumed_inputs in 1.
OpDef with_old_broadcast(const elementwise::Spec& spec) {
  OpDef d = elementwise::make_op(spec);
  d.normalize = normalize_old_broadcast;
  rules::old_attributes(d, {"broadcast", "axis"}, 7);
  if (spec.name != "Pow") rules::ignore_consumed_inputs(d);
  return d;
}

}  // namespace

void add_binary_ops(std::vector<OpDef>& ops) {
  elementwise::Spec a = binary("Add", {1, 6, 7, 13, 14}, K::Add, add_);
  a.i = [](const Node&, const std::vector<int64_t>& v) { return v[0] + v[1]; };
  a.epilogue = Epilogue::Add;
  elementwise::Spec s = binary("Sub", {1, 6, 7, 13, 14}, K::Sub, sub_);
  s.i = [](const Node&, const std::vector<int64_t>& v) { return v[0] - v[1]; };
  elementwise::Spec m = binary("Mul", {1, 6, 7, 13, 14}, K::Mul, mul_);
  m.i = [](const Node&, const std::vector<int64_t>& v) { return v[0] * v[1]; };
  elementwise::Spec d = binary("Div", {1, 6, 7, 13, 14}, K::Div, div_);
  d.i = [](const Node& n, const std::vector<int64_t>& v) { return int_div(n, v[0], v[1]); };
  elementwise::Spec p = binary("Pow", {1, 7, 12, 13, 15}, K::Pow, pow_);
  // A scalar constant exponent is pow(x,c) (squares and roots fast); any other is pow(x,y), an
  // integer exponent read as float32. An integer base: the power in float32 rounded back to the
  // base's type (exact to 2^24).
  p.expression = [](ElementwiseArgs& args, const Graph& scope, const Node& n) {
    const DType base = scope.input_of(n, 0).dtype;
    auto x = args.value(n.inputs.at(0));
    if (base != DType::Float32) x = ops::ew_cast(x, DType::Float32);
    ops::ElementwiseExprPtr power;
    if (const auto exponent = args.scalar_constant(n.inputs.at(1))) {
      power = ops::ew_pow(x, *exponent);
    } else {
      auto y = args.value(n.inputs.at(1));
      if (scope.input_of(n, 1).dtype != DType::Float32) y = ops::ew_cast(y, DType::Float32);
      power = ops::ew_binary(K::Pow, x, y);
    }
    return base == DType::Float32 ? power : ops::ew_cast(ops::ew_unary(K::Round, power), base);
  };
  p.kernel_takes = [](size_t, DType t) { return numeric(t); };  // float64 stays out: pow runs in float32
  p.typed_apart = {1};
  for (elementwise::Spec* exact : {&a, &s, &m}) exact->kernel_takes = numeric_or_float64;
  d.kernel_takes = float_kernel;
  for (const auto& spec : {a, s, m, d, p}) ops.push_back(with_old_broadcast(spec));
  ops.push_back(mod());
  // Version 1 differs from 6 only by consumed_inputs; 6 takes one shape for all inputs, a case of
  // 8's broadcasting. Mean stays float32: its 1/n is a float32 literal.
  elementwise::Spec max = variadic("Max", {1, 6, 8, 12, 13}, K::Max, false),
                    min = variadic("Min", {1, 6, 8, 12, 13}, K::Min, false);
  max.kernel_takes = min.kernel_takes = numeric_or_float64;
  elementwise::Spec sum = variadic("Sum", {1, 6, 8, 13}, K::Add, false);
  sum.kernel_takes = float_kernel;
  for (const auto& spec : {max, min, sum, variadic("Mean", {1, 6, 8, 13}, K::Add, true)}) {
    OpDef op = elementwise::make_op(spec);
    rules::ignore_consumed_inputs(op);
    ops.push_back(std::move(op));
  }
}

}  // namespace tf::graph

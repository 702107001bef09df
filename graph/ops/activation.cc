// Activations of one input with attributes (LeakyRelu, Elu, Selu, Celu, HardSigmoid, HardSwish,
// Mish, Gelu, ThresholdedRelu, Shrink) and PRelu (its slope an input). Each is a composition of
// elementwise kinds (compiler/ops/elementwise_expr.h lists them with their measured accuracy), so
// a chain of them fuses into one kernel.
#include <cmath>

#include "graph/ops/elementwise.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using K = ops::ElementwiseKind;
using ops::ElementwiseExprPtr;
using Attrs = std::vector<std::pair<std::string, double>>;  // float attributes and their defaults

ElementwiseExprPtr c(double v) { return ops::ew_constant(v); }
ElementwiseExprPtr mul(ElementwiseExprPtr a, ElementwiseExprPtr b) {
  return ops::ew_binary(K::Mul, std::move(a), std::move(b));
}
ElementwiseExprPtr add(ElementwiseExprPtr a, ElementwiseExprPtr b) {
  return ops::ew_binary(K::Add, std::move(a), std::move(b));
}
ElementwiseExprPtr lt(ElementwiseExprPtr a, ElementwiseExprPtr b) {
  return ops::ew_binary(K::Less, std::move(a), std::move(b));
}
ElementwiseExprPtr gt(ElementwiseExprPtr a, ElementwiseExprPtr b) {
  return ops::ew_binary(K::Greater, std::move(a), std::move(b));
}

// An activation of x whose expression and value read the node's float attributes (defaults given).
struct Activation {
  std::string name;
  std::vector<int> versions;
  Attrs attrs;
  std::function<ElementwiseExprPtr(ElementwiseExprPtr x, const std::vector<double>& a)> expr;
  std::function<double(double x, const std::vector<double>& a)> value;
};

std::vector<double> read(const Node& n, const Attrs& attrs) {
  std::vector<double> out;
  for (const auto& [name, fallback] : attrs) {
    const double v = n.attr_float(name, fallback);
    if (!std::isfinite(v)) rules::fail(n, "attribute '" + name + "' = " + std::to_string(v) + " is not finite");
    out.push_back(v);
  }
  return out;
}

OpDef make(const Activation& a) {
  elementwise::Spec s;
  s.name = a.name;
  s.versions = a.versions;
  s.f = [](const std::vector<double>&) -> double { return 0; };  // replaced by the fold below, which has the node
  s.expression = [a](ElementwiseArgs& args, const Graph&, const Node& n) {
    return a.expr(args.value(n.inputs.at(0)), read(n, a.attrs));
  };
  OpDef d = elementwise::make_op(s);
  for (const auto& [name, fallback] : a.attrs) d.attributes.push_back(name);
  d.fold = [a, s](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    elementwise::Spec with_attrs = s;
    const std::vector<double> values = read(n, a.attrs);
    with_attrs.f = [a, values](const std::vector<double>& x) { return a.value(x[0], values); };
    const Value& out = g.value(n.outputs.at(0));
    return elementwise::evaluate(n, inputs, out.shape, out.dtype, with_attrs);
  };
  return d;
}

double gelu(double x, bool tanh_form) {
  if (!tanh_form) return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

OpDef gelu_op() {
  elementwise::Spec s;
  s.name = "Gelu";
  s.versions = {20};
  s.f = [](const std::vector<double>& x) { return gelu(x[0], false); };
  auto tanh_form = [](const Node& n) {
    const std::string approximate = n.attr_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
      rules::fail(n, "attribute 'approximate' = '" + approximate + "' is not one of none, tanh");
    return approximate == "tanh";
  };
  s.expression = [tanh_form](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto x = args.value(n.inputs.at(0));
    auto half_x = mul(x, c(0.5));
    if (!tanh_form(n)) return mul(half_x, add(c(1), ops::ew_unary(K::Erf, mul(x, c(M_SQRT1_2)))));
    auto inner = mul(add(x, mul(ops::ew_pow(x, 3), c(0.044715))), c(std::sqrt(2 / M_PI)));
    return mul(half_x, add(c(1), ops::ew_unary(K::Tanh, inner)));
  };
  OpDef d = elementwise::make_op(s);
  d.attributes = {"approximate"};
  d.fold = [s, tanh_form](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    elementwise::Spec form = s;
    const bool t = tanh_form(n);
    form.f = [t](const std::vector<double>& x) { return gelu(x[0], t); };
    const Value& out = g.value(n.outputs.at(0));
    return elementwise::evaluate(n, inputs, out.shape, out.dtype, form);
  };
  return d;
}

// Before 7 the slope is one value or one per channel (axis 1, as Caffe2 had it); canonical (as
// from 7): the per-channel slope shaped [C, 1, ...] so numpy broadcasting puts it on axis 1.
std::vector<Node> normalize_old_slope(Graph& g, Node n, const OpVersion& v) {
  if (v.since >= 7) return {std::move(n)};
  const Shape x = rules::in(g, n, 0).shape, slope = rules::in(g, n, 1).shape;
  if (element_count(slope) == 1) return {std::move(n)};
  const int64_t channels = x.size() >= 2 ? x[1] : -1;
  if (slope.size() != 1 || slope[0] != channels) {
    rules::fail(n, "slope " + shape_str(slope) + " is neither one value nor one per channel of " + shape_str(x) +
                       " (PRelu version " + std::to_string(v.since) + ")");
  }
  Shape per_channel(x.size() - 1, 1);
  per_channel[0] = channels;
  std::vector<Node> nodes;
  n.inputs[1] = rules::reshape_to(g, n.inputs[1], per_channel, nodes);
  nodes.push_back(std::move(n));
  return nodes;
}

OpDef prelu() {
  elementwise::Spec s;
  s.name = "PRelu";
  s.versions = {1, 6, 7, 9, 16};
  s.min_inputs = s.max_inputs = 2;
  s.f = [](const std::vector<double>& a) { return a[0] < 0 ? a[0] * a[1] : a[0]; };
  s.expression = [](ElementwiseArgs& args, const Graph&, const Node& n) {
    auto x = args.value(n.inputs.at(0));
    auto slope = args.value(n.inputs.at(1));
    return ops::ew_where(lt(x, c(0)), mul(x, slope), x);
  };
  OpDef d = elementwise::make_op(s);
  d.normalize = normalize_old_slope;
  rules::ignore_consumed_inputs(d);
  return d;
}

// Selu 1's defaults are rounder than 6's: written out, the node reads as 6.
std::vector<Node> selu_defaults(Graph&, Node n, const OpVersion& v) {
  if (v.since == 1) {
    if (!n.has("alpha")) n.attrs["alpha"] = static_cast<double>(1.6732f);
    if (!n.has("gamma")) n.attrs["gamma"] = static_cast<double>(1.0507f);
  }
  return {std::move(n)};
}

double softplus(double x) { return x > 20 ? x : std::log1p(std::exp(x)); }

std::vector<Activation> activations() {
  return {
      {"LeakyRelu",
       {1, 6, 16},
       {{"alpha", 0.01}},
       [](ElementwiseExprPtr x, const std::vector<double>& a) {
         return ops::ew_where(lt(x, c(0)), mul(x, c(a[0])), x);
       },
       [](double x, const std::vector<double>& a) { return x < 0 ? x * a[0] : x; }},
      {"Elu",
       {1, 6},
       {{"alpha", 1.0}},
       [](ElementwiseExprPtr x, const std::vector<double>& a) {
         return ops::ew_where(lt(x, c(0)), mul(ops::ew_unary(K::Expm1, x), c(a[0])), x);
       },
       [](double x, const std::vector<double>& a) { return x < 0 ? std::expm1(x) * a[0] : x; }},
      {"Selu",
       {1, 6},
       {{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}},
       [](ElementwiseExprPtr x, const std::vector<double>& a) {
         return ops::ew_where(gt(x, c(0)), mul(x, c(a[1])), mul(ops::ew_unary(K::Expm1, x), c(a[0] * a[1])));
       },
       [](double x, const std::vector<double>& a) { return x > 0 ? x * a[1] : std::expm1(x) * a[0] * a[1]; }},
      {"Celu",
       {12},
       {{"alpha", 1.0}},
       [](ElementwiseExprPtr x, const std::vector<double>& a) {
         return ops::ew_where(gt(x, c(0)), x,
                              mul(ops::ew_unary(K::Expm1, ops::ew_binary(K::Div, x, c(a[0]))), c(a[0])));
       },
       [](double x, const std::vector<double>& a) { return x > 0 ? x : std::expm1(x / a[0]) * a[0]; }},
      {"HardSigmoid",
       {1, 6},
       {{"alpha", 0.2}, {"beta", 0.5}},
       [](ElementwiseExprPtr x, const std::vector<double>& a) {
         return ops::ew_clip(add(mul(x, c(a[0])), c(a[1])), 0, 1);
       },
       [](double x, const std::vector<double>& a) { return std::min(std::max(x * a[0] + a[1], 0.0), 1.0); }},
      {"HardSwish",
       {14},
       {},
       [](ElementwiseExprPtr x, const std::vector<double>&) {
         return mul(x, ops::ew_clip(add(mul(x, c(1.0 / 6)), c(0.5)), 0, 1));
       },
       [](double x, const std::vector<double>&) { return x * std::min(std::max(x / 6 + 0.5, 0.0), 1.0); }},
      {"Mish",
       {18},
       {},
       [](ElementwiseExprPtr x, const std::vector<double>&) {
         return mul(x, ops::ew_unary(K::Tanh, ops::ew_unary(K::Softplus, x)));
       },
       [](double x, const std::vector<double>&) { return x * std::tanh(softplus(x)); }},
      {"ThresholdedRelu",
       {10},
       {{"alpha", 1.0}},
       [](ElementwiseExprPtr x, const std::vector<double>& a) { return ops::ew_where(gt(x, c(a[0])), x, c(0)); },
       [](double x, const std::vector<double>& a) { return x > a[0] ? x : 0.0; }},
      {"Shrink",
       {9},
       {{"bias", 0.0}, {"lambd", 0.5}},
       [](ElementwiseExprPtr x, const std::vector<double>& a) {
         return ops::ew_where(lt(x, c(-a[1])), add(x, c(a[0])),
                              ops::ew_where(gt(x, c(a[1])), ops::ew_binary(K::Sub, x, c(a[0])), c(0)));
       },
       [](double x, const std::vector<double>& a) { return x < -a[1]  ? x + a[0]
                                                           : x > a[1] ? x - a[0]
                                                                      : 0.0; }},
  };
}

}  // namespace

void add_activation_ops(std::vector<OpDef>& ops) {
  for (const auto& a : activations()) {
    OpDef d = make(a);
    if (d.name == "Selu") d.normalize = selu_defaults;
    if (d.versions.front() == 1) rules::ignore_consumed_inputs(d);
    ops.push_back(std::move(d));
  }
  ops.push_back(gelu_op());
  ops.push_back(prelu());
}

}  // namespace tf::graph

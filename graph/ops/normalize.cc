// BatchNormalization (inference: versions 1, 6 with is_test=1, 7, 9, 14, 15), InstanceNormalization, LRN (the
// instance_norm and lrn kernels on [N, C, spatial]). A batch norm after a Conv is folded into its
// weights (passes/fold_batchnorm.cc); any other runs as one elementwise kernel over its
// per-channel parameters. LayerNormalization: the layer_norm kernel on [rows, cols], and when the
// model reads its Mean / InvStdDev outputs, helper nodes that compute them.
#include <cmath>
#include <cstdio>

#include "compiler/ops/elementwise.h"
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {

namespace {

using K = ops::ElementwiseKind;
using rules::fail;

// Inputs 1 up to `end` are per-channel parameters: shape [C], C being x's axis 1.
void require_per_channel(const Graph& g, const Node& n, const Value& x, size_t end) {
  for (size_t i = 1; i < end; ++i) {
    const Value& p = rules::in(g, n, i);
    if (p.shape != Shape{x.shape[1]})
      fail(n, "input " + std::to_string(i) + " '" + p.name + "' has shape " + shape_str(p.shape) + ", not [" +
                  std::to_string(x.shape[1]) + "]");
  }
}

std::optional<std::string> check_batch_norm(const Node& n, const OpVersion& v) {
  if (v.since < 7 && n.attr_int("is_test", 0) == 0) {
    return "attribute 'is_test' = 0 (training, the default of version " + std::to_string(v.since) +
           ") is not supported (inference only)";
  }
  if (n.attr_int("spatial", 1) != 1)
    return "attribute 'spatial' = 0 is not supported (one mean and variance per channel only)";
  if (n.attr_int("training_mode", 0) != 0) return "attribute 'training_mode' = 1 is not supported (inference only)";
  if (rules::extra_output(n, 1, "")) return "running mean/variance outputs are not supported (inference only)";
  return std::nullopt;
}

// Canonical: X, scale, B, mean, var and epsilon; what only training reads is dropped.
std::vector<Node> normalize_batch_norm(Graph&, Node n, const OpVersion&) {
  for (const char* unused : {"momentum", "spatial", "training_mode", "is_test", "consumed_inputs"})
    n.attrs.erase(unused);
  n.attrs["epsilon"] = n.attr_float("epsilon", 1e-5);
  return {std::move(n)};
}

void infer_batch_norm(Graph& g, const Node& n) {
  rules::require_float32(g, n, n.op);
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() < 2)
    fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; a channel axis (rank 2 or more) is required");
  require_per_channel(g, n, x, 5);
  rules::same_as_input(g, n);
}

// (x - mean) / sqrt(var + epsilon) * scale + B, the parameters seen as [1, C, 1, ...]. The kernel
// numbers its inputs in the order the expression's text first reads them, so the arguments follow
// that order: x, mean, var, scale, B.
NodeLowering lower_batch_norm(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  if (x.size() > 6) fail(n, "input rank " + std::to_string(x.size()) + " is beyond the elementwise kernel's 6");
  auto in = [](int i) { return ops::ew_input(i); };
  auto e = ops::ew_binary(
      K::Div, ops::ew_binary(K::Sub, in(0), in(1)),
      ops::ew_unary(K::Sqrt, ops::ew_binary(K::Add, in(2), ops::ew_constant(n.attr_float("epsilon", 1e-5)))));
  e = ops::ew_binary(K::Add, ops::ew_binary(K::Mul, e, in(3)), in(4));
  std::vector<int64_t> shape = x;
  for (int i = 1; i < 5; ++i) {
    Shape per_channel(x.size(), 1);
    per_channel[1] = x[1];
    shape.insert(shape.end(), per_channel.begin(), per_channel.end());
  }
  auto op = std::make_shared<ops::ElementwiseOperator>(e, static_cast<int>(x.size()));
  return lowering::call(lowering::make_call(
      n, op, shape, lowering::with_output({n.inputs[0], n.inputs[3], n.inputs[4], n.inputs[1], n.inputs[2]}, n)));
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

// A float attribute as the integer extent the kernels take it in (units of `unit`: eps_e12,
// alpha_e9): refused when it leaves [lo, hi] (a float's rounding aside) or the units are off by
// more than a part in a million.
int64_t in_units(const Node& n, const std::string& attr, double value, double unit, double lo, double hi) {
  if (!(value >= lo * (1 - 1e-6) && value <= hi))
    fail(n, "attribute '" + attr + "' = " + number(value) + " is outside [" + number(lo) + ", " + number(hi) + "]");
  const int64_t units = std::llround(value / unit);
  if (std::abs(static_cast<double>(units) * unit - value) > 1e-6 * std::abs(value)) {
    fail(n, "attribute '" + attr + "' = " + number(value) + " is not a multiple of " + number(unit) +
                " (within a part in a million), which the kernel takes");
  }
  return units;
}

// [N, C, D1, ...] as the kernels see it: n, c and the spatial extents flattened.
lowering::Named planes(const Node& n, const Shape& x) {
  if (x.size() < 3) fail(n, "input has shape " + shape_str(x) + "; [N, C, D1, ...] (rank 3 or more) is required");
  return {{"n", x[0]}, {"c", x[1]}, {"spatial", element_count(Shape(x.begin() + 2, x.end()))}};
}

void infer_instance_norm(Graph& g, const Node& n) {
  rules::require_float32(g, n, n.op);
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() < 3)
    fail(n,
         "input '" + x.name + "' has shape " + shape_str(x.shape) + "; [N, C, D1, ...] (rank 3 or more) is required");
  require_per_channel(g, n, x, 3);
  rules::same_as_input(g, n);
}

NodeLowering lower_instance_norm(const Graph& g, const Node& n) {
  lowering::Named e = planes(n, g.input_of(n, 0).shape);
  e["eps_e12"] = in_units(n, "epsilon", n.attr_float("epsilon", 1e-5), 1e-12, 1e-12, 1);
  return lowering::call(lowering::named_call(n, "instance_norm", e,
                                             lowering::with_output({n.inputs[0], n.inputs.at(1), n.inputs.at(2)}, n)));
}

std::optional<std::string> check_lrn(const Node& n, const OpVersion&) {
  if (!n.has("size")) return "attribute 'size' is required";
  const int64_t size = n.attr_int("size", 0);
  if (size < 1 || size > 4096) return "attribute 'size' = " + std::to_string(size) + " is outside [1, 4096]";
  return std::nullopt;
}

NodeLowering lower_lrn(const Graph& g, const Node& n) {
  lowering::Named e = planes(n, g.input_of(n, 0).shape);
  e["size"] = n.attr_int("size", 1);
  e["alpha_e9"] = in_units(n, "alpha", n.attr_float("alpha", 1e-4), 1e-9, 0, 1000);
  e["beta_e9"] = in_units(n, "beta", n.attr_float("beta", 0.75), 1e-9, 1e-9, 1000);
  e["bias_e9"] = in_units(n, "bias", n.attr_float("bias", 1.0), 1e-9, 1e-9, 1000);
  return lowering::call(lowering::named_call(n, "lrn", e, lowering::with_output({n.inputs[0]}, n)));
}

// LayerNormalization over the axes from `axis` on: the layer_norm kernel on [rows, cols] with rows
// the extents before the axis and cols those from it. Canonical: axis non-negative, epsilon written
// out, one output; Mean and InvStdDev, when read, come from helper nodes after it (below).
void require_per_normalized_element(const Graph& g, const Node& n, size_t i, int64_t axis) {
  const Shape& x = g.input_of(n, 0).shape;
  const Value& p = rules::in(g, n, i);
  const int64_t rank = static_cast<int64_t>(x.size()), prank = static_cast<int64_t>(p.shape.size());
  bool fits = prank <= rank && element_count(p.shape) == element_count(Shape(x.begin() + axis, x.end()));
  for (int64_t k = 0; fits && k < prank; ++k) {
    const int64_t at = rank - prank + k;
    fits = at >= axis ? p.shape[k] == x[at] : p.shape[k] == 1;
  }
  if (!fits) {
    fail(n, "input " + std::to_string(i) + " '" + p.name + "' has shape " + shape_str(p.shape) +
                "; one value per normalized element " + shape_str(Shape(x.begin() + axis, x.end())) + " is supported");
  }
}

void infer_layer_norm(Graph& g, const Node& n) {
  rules::require_float32(g, n, n.op);
  const int64_t axis = n.attr_int("axis", -1);
  require_per_normalized_element(g, n, 1, axis);
  if (g.input_present(n, 2)) require_per_normalized_element(g, n, 2, axis);
  rules::same_as_input(g, n);
}

NodeLowering lower_layer_norm(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const int64_t axis = n.attr_int("axis", -1);
  const int64_t cols = element_count(Shape(x.begin() + axis, x.end()));
  lowering::Named e = {{"rows", element_count(Shape(x.begin(), x.begin() + axis))}, {"cols", cols}};
  e["eps_e12"] = in_units(n, "epsilon", n.attr_float("epsilon", 1e-5), 1e-12, 1e-12, 1);
  std::vector<std::string> args = {n.inputs[0], n.inputs.at(1)};
  std::pair<std::string, Tensor> zero_bias;
  if (g.input_present(n, 2)) {
    args.push_back(n.inputs[2]);
  } else {
    // No bias: the kernel adds a zero one.
    zero_bias = {g.unique_name(n.name + "_zero_bias"),
                 Tensor::floats({cols}, std::vector<float>(static_cast<size_t>(cols), 0.0f))};
    args.push_back(zero_bias.first);
  }
  KernelCall c = lowering::named_call(n, "layer_norm", e, lowering::with_output(args, n));
  if (!zero_bias.first.empty()) c.extra_constants.push_back(std::move(zero_bias));
  return lowering::call(std::move(c));
}

// Mean = ReduceMean(X) and InvStdDev = 1 / sqrt(ReduceSumSquare(X - Mean) / cols + epsilon) over the
// normalized axes (kept as 1s), written to `mean` and `inv_std_dev` (either may be "": not read).
std::vector<Node> statistics(Graph& g, const Node& ln, const std::string& mean, const std::string& inv_std_dev) {
  const Shape& x = g.value(ln.inputs[0]).shape;
  const int64_t axis = ln.attr_int("axis", -1), rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  auto reduce = [&](const std::string& op, const std::string& input, const std::string& stem) {
    Node r = rules::helper_node(g, op, {input}, stem);
    r.attrs["axes"] = axes;
    r.attrs["keepdims"] = int64_t{1};
    return r;
  };
  auto scalar = [&](const std::string& stem, double v) {
    return rules::add_constant(g, ln.name + "_" + stem, Tensor::floats({}, {static_cast<float>(v)}));
  };
  std::vector<Node> nodes = {reduce("ReduceMean", ln.inputs[0], ln.name + "_mean")};
  if (!mean.empty()) nodes.back().outputs = {mean};
  if (inv_std_dev.empty()) return nodes;
  const std::string m = nodes.back().outputs[0];
  nodes.push_back(rules::helper_node(g, "Sub", {ln.inputs[0], m}, ln.name + "_centered"));
  nodes.push_back(reduce("ReduceSumSquare", nodes.back().outputs[0], ln.name + "_sum_sq"));
  nodes.push_back(rules::helper_node(
      g, "Div",
      {nodes.back().outputs[0], scalar("count", static_cast<double>(element_count(Shape(x.begin() + axis, x.end()))))},
      ln.name + "_var"));
  nodes.push_back(rules::helper_node(
      g, "Add", {nodes.back().outputs[0], scalar("epsilon", ln.attr_float("epsilon", 1e-5))}, ln.name + "_var_eps"));
  nodes.push_back(rules::helper_node(g, "Sqrt", {nodes.back().outputs[0]}, ln.name + "_std_dev"));
  nodes.push_back(
      rules::helper_node(g, "Div", {scalar("one", 1.0), nodes.back().outputs[0]}, ln.name + "_inv_std_dev"));
  nodes.back().outputs = {inv_std_dev};
  return nodes;
}

std::vector<Node> normalize_layer_norm(Graph& g, Node n, const OpVersion&) {
  const int64_t rank = static_cast<int64_t>(rules::in(g, n, 0).shape.size());
  if (rank == 0) fail(n, "input is a scalar; LayerNormalization needs an axis");
  n.attrs["axis"] = normalize_axis(n.attr_int("axis", -1), rank, n, "axis");
  n.attrs["epsilon"] = n.attr_float("epsilon", 1e-5);
  n.attrs.erase("stash_type");
  const std::string mean = n.outputs.size() > 1 ? n.outputs[1] : "",
                    inv_std_dev = n.outputs.size() > 2 ? n.outputs[2] : "";
  n.outputs.resize(1);
  std::vector<Node> nodes = {n};
  if (mean.empty() && inv_std_dev.empty()) return nodes;
  for (Node& s : statistics(g, n, mean, inv_std_dev)) nodes.push_back(std::move(s));
  return nodes;
}

OpDef layer_normalization() {
  OpDef d;
  d.name = "LayerNormalization";
  d.versions = {17};
  d.attributes = {"axis", "epsilon", "stash_type"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (n.attr_int("stash_type", 1) != 1)
      return "attribute 'stash_type' = " + std::to_string(n.attr_int("stash_type", 1)) +
             " is not supported (1: float32)";
    return std::nullopt;
  };
  d.normalize = normalize_layer_norm;
  d.infer = infer_layer_norm;
  d.lower = lower_layer_norm;
  return d;
}

}  // namespace

void add_normalization_ops(std::vector<OpDef>& ops) {
  OpDef bn;
  bn.name = "BatchNormalization";
  bn.versions = {1, 6, 7, 9, 14, 15};
  bn.attributes = {"epsilon", "momentum", "training_mode"};
  bn.check = check_batch_norm;
  bn.normalize = normalize_batch_norm;
  rules::old_attributes(bn, {"is_test"}, 7);
  rules::old_attributes(bn, {"spatial"}, 9);
  rules::ignore_consumed_inputs(bn);
  bn.infer = infer_batch_norm;
  bn.lower = lower_batch_norm;
  bn.fusion.epilogue = Epilogue::BatchNorm;
  ops.push_back(bn);

  OpDef inorm;
  inorm.name = "InstanceNormalization";
  inorm.versions = {1, 6};
  inorm.attributes = {"epsilon", "consumed_inputs"};
  inorm.normalize = [](Graph&, Node n, const OpVersion&) {
    n.attrs.erase("consumed_inputs");
    n.attrs["epsilon"] = n.attr_float("epsilon", 1e-5);
    return std::vector<Node>{std::move(n)};
  };
  inorm.infer = infer_instance_norm;
  inorm.lower = lower_instance_norm;
  ops.push_back(inorm);

  OpDef lrn;
  lrn.name = "LRN";
  lrn.versions = {1, 13};
  lrn.attributes = {"alpha", "beta", "bias", "size"};
  lrn.check = check_lrn;
  lrn.infer = [](Graph& g, const Node& n) { rules::same_as_input(g, n); };
  lrn.lower = lower_lrn;
  ops.push_back(lrn);

  ops.push_back(layer_normalization());
}

}  // namespace tf::graph

// BatchNormalization (inference: versions 7, 9, 14, 15) and LayerNormalization. A batch norm
// after a Conv is folded into its weights (passes/fold_batchnorm.cc); any other runs as one
// elementwise kernel over its per-channel parameters.
#include <cmath>

#include "compiler/ops/elementwise.h"
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using K = ops::ElementwiseKind;
using rules::fail;

std::optional<std::string> check_batch_norm(const Node& n, const OpVersion&) {
  if (n.attr_int("spatial", 1) != 1) return "attribute 'spatial' = 0 is not supported (one mean and variance per channel only)";
  if (n.attr_int("training_mode", 0) != 0) return "attribute 'training_mode' = 1 is not supported (inference only)";
  if (rules::extra_output(n, 1, "")) return "running mean/variance outputs are not supported (inference only)";
  return std::nullopt;
}

// Canonical: X, scale, B, mean, var and epsilon; what only training reads is dropped.
std::vector<Node> normalize_batch_norm(Graph&, Node n, const OpVersion&) {
  for (const char* unused : {"momentum", "spatial", "training_mode", "is_test", "consumed_inputs"}) n.attrs.erase(unused);
  n.attrs["epsilon"] = n.attr_float("epsilon", 1e-5);
  return {std::move(n)};
}

void infer_batch_norm(Graph& g, const Node& n) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() < 2) fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; a channel axis (rank 2 or more) is required");
  for (size_t i = 1; i < 5; ++i) {
    const Value& p = rules::in(g, n, i);
    if (p.shape != Shape{x.shape[1]}) fail(n, "input " + std::to_string(i) + " '" + p.name + "' has shape " + shape_str(p.shape) + ", not [" + std::to_string(x.shape[1]) + "]");
  }
  rules::same_as_input(g, n);
}

// (x - mean) / sqrt(var + epsilon) * scale + B, the parameters seen as [1, C, 1, ...]. The kernel
// numbers its inputs in the order the expression's text first reads them, so the arguments follow
// that order: x, mean, var, scale, B.
NodeLowering lower_batch_norm(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  if (x.size() > 6) fail(n, "input rank " + std::to_string(x.size()) + " is beyond the elementwise kernel's 6");
  auto in = [](int i) { return ops::ew_input(i); };
  auto e = ops::ew_binary(K::Div, ops::ew_binary(K::Sub, in(0), in(1)), ops::ew_unary(K::Sqrt, ops::ew_binary(K::Add, in(2), ops::ew_constant(n.attr_float("epsilon", 1e-5)))));
  e = ops::ew_binary(K::Add, ops::ew_binary(K::Mul, e, in(3)), in(4));
  std::vector<int64_t> shape = x;
  for (int i = 1; i < 5; ++i) {
    Shape per_channel(x.size(), 1);
    per_channel[1] = x[1];
    shape.insert(shape.end(), per_channel.begin(), per_channel.end());
  }
  auto op = std::make_shared<ops::ElementwiseOperator>(e, static_cast<int>(x.size()));
  return lowering::call(lowering::make_call(n, op, shape, lowering::with_output({n.inputs[0], n.inputs[3], n.inputs[4], n.inputs[1], n.inputs[2]}, n)));
}

NodeLowering lower_layer_norm(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  lowering::last_axis_only(g, n, "axis", n.attr_int("axis", -1));
  lowering::Named e = {{"rows", lowering::leading_product(x, 1)}, {"cols", x.back()}};
  e["eps_e12"] = std::llround(n.attr_float("epsilon", 1e-5) * 1e12);
  if (e["eps_e12"] < 1) fail(n, "attribute 'epsilon' is below 1e-12, the smallest the kernel takes");
  std::vector<std::string> args = {n.inputs[0], n.inputs.at(1)};
  std::pair<std::string, Tensor> zero_bias;
  if (g.input_present(n, 2)) {
    args.push_back(n.inputs[2]);
  } else {
    // No bias: the kernel adds a zero one.
    zero_bias = {g.unique_name(n.name + "_zero_bias"), Tensor::floats({x.back()}, std::vector<float>(x.back(), 0.0f))};
    args.push_back(zero_bias.first);
  }
  KernelCall c = lowering::named_call(n, "layer_norm", e, lowering::with_output(args, n));
  if (!zero_bias.first.empty()) c.extra_constants.push_back(std::move(zero_bias));
  return lowering::call(std::move(c));
}

}  // namespace

void add_normalization_ops(std::vector<OpDef>& ops) {
  OpDef bn;
  bn.name = "BatchNormalization";
  bn.versions = {7, 9, 14, 15};
  bn.attributes = {"epsilon", "momentum", "spatial", "training_mode", "is_test", "consumed_inputs"};
  bn.check = check_batch_norm;
  bn.normalize = normalize_batch_norm;
  bn.infer = infer_batch_norm;
  bn.lower = lower_batch_norm;
  bn.fusion.epilogue = Epilogue::BatchNorm;
  ops.push_back(bn);

  OpDef ln;
  ln.name = "LayerNormalization";
  ln.versions = {17};
  ln.attributes = {"axis", "epsilon", "stash_type"};
  ln.check = [](const Node& n, const OpVersion&) { return rules::extra_output(n, 1, "Mean / InvStdDev"); };
  ln.infer = [](Graph& g, const Node& n) { rules::same_as_input(g, n); };
  ln.lower = lower_layer_norm;
  ops.push_back(ln);
}

}  // namespace tf::graph

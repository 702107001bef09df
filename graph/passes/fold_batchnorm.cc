#include <cmath>

#include "graph/ops/registry.h"
#include "graph/passes/passes.h"

namespace tf::graph::passes {
namespace {

// The conv node index when `bn` can fold into its producer, else -1.
int foldable_conv(const Graph& g, const Node& bn) {
  const int conv = g.producer(bn.inputs[0]);
  if (conv < 0 || fusion_role(g.nodes[conv].op).anchor != Anchor::Conv || g.use_count(bn.inputs[0]) != 1) return -1;
  const Node& c = g.nodes[conv];
  if (!g.constant(c.inputs[1]) || (g.input_present(c, 2) && !g.constant(c.inputs[2]))) return -1;
  for (size_t i = 1; i < 5; ++i) {
    if (!g.input_present(bn, i) || !g.constant(bn.inputs[i])) return -1;
  }
  return conv;
}

void fold_into(Graph& g, Node& conv, const Node& bn) {
  const Tensor& w = *g.constant(conv.inputs[1]);
  const Tensor *scale = g.constant(bn.inputs[1]), *shift = g.constant(bn.inputs[2]);
  const Tensor *mean = g.constant(bn.inputs[3]), *var = g.constant(bn.inputs[4]);
  const Tensor* bias = g.input_present(conv, 2) ? g.constant(conv.inputs[2]) : nullptr;
  const double eps = bn.attr_float("epsilon", 1e-5);
  const int64_t k = w.shape[0], per_channel = w.size() / k;
  Tensor w2 = w, b2 = Tensor::floats({k}, std::vector<float>(k, 0.0f));
  for (int64_t o = 0; o < k; ++o) {
    const double s = scale->at(o) / std::sqrt(var->at(o) + eps);
    for (int64_t i = 0; i < per_channel; ++i)
      w2.f32[o * per_channel + i] = static_cast<float>(w.f32[o * per_channel + i] * s);
    b2.f32[o] = static_cast<float>(((bias ? bias->at(o) : 0.0) - mean->at(o)) * s + shift->at(o));
  }
  const std::string w_name = g.unique_name(conv.name + ".weight_bn"), b_name = g.unique_name(conv.name + ".bias_bn");
  g.set_constant(w_name, std::move(w2));
  g.set_constant(b_name, std::move(b2));
  conv.inputs = {conv.inputs[0], w_name, b_name};
  conv.outputs = bn.outputs;
}

}  // namespace

Graph fold_batchnorm(const Graph& in) {
  Graph g = in;
  std::vector<bool> drop(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& bn = g.nodes[i];
    if (fusion_role(bn.op).epilogue != Epilogue::BatchNorm || bn.inputs.size() < 5) continue;
    const int conv = foldable_conv(g, bn);
    if (conv < 0) continue;
    fold_into(g, g.nodes[conv], bn);
    drop[i] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
  g.remove_unused_values();
  return g;
}

}  // namespace tf::graph::passes

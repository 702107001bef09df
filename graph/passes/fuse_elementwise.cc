#include <algorithm>
#include <set>

#include "graph/constant_eval.h"
#include "graph/passes/fused_body.h"
#include "graph/passes/passes.h"

namespace tf::graph::passes {
namespace {

bool fusible(const Graph& g, const Node& n) {
  return is_elementwise(n.op) && n.outputs.size() == 1 && g.value(n.outputs[0]).dtype == DType::Float32;
}

// The chain starting at node `first`: each next node is the sole reader of the previous output and
// computes a value of the same shape.
std::vector<size_t> chain_from(const Graph& g, size_t first, const std::set<size_t>& taken) {
  std::vector<size_t> chain = {first};
  for (;;) {
    const std::string& out = g.nodes[chain.back()].outputs[0];
    if (g.use_count(out) != 1) break;
    const auto readers = g.consumers(out);
    if (readers.size() != 1 || taken.count(readers[0])) break;
    const Node& next = g.nodes[readers[0]];
    if (!fusible(g, next) || g.value(next.outputs[0]).shape != g.value(out).shape) break;
    chain.push_back(readers[0]);
  }
  return chain;
}

Node fuse_chain(const Graph& g, const std::vector<size_t>& chain) {
  std::set<std::string> internal;
  for (size_t i : chain) internal.insert(g.nodes[i].outputs[0]);
  auto body = std::make_shared<Graph>();
  Node fused;
  fused.name = g.unique_name("fused_" + g.nodes[chain.front()].name);
  fused.op = kFusedElementwise;
  std::string ops;
  for (size_t i : chain) {
    const Node& n = g.nodes[i];
    ops += (ops.empty() ? "" : ",") + n.op;
    add_outside_inputs(g, n, internal, fused, *body);
    body->set_value(g.value(n.outputs[0]));
    body->nodes.push_back(n);
  }
  fused.outputs = {g.nodes[chain.back()].outputs[0]};
  body->outputs = fused.outputs;
  fused.attrs["ops"] = ops;
  fused.body = body;
  return fused;
}

}  // namespace

Graph fuse_elementwise(const Graph& in) {
  Graph g = in;
  std::set<size_t> taken;
  std::vector<Node> result;
  std::vector<std::pair<size_t, Node>> fused_at;  // position of the chain's last node -> fused node
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (taken.count(i) || !fusible(g, g.nodes[i])) continue;
    const auto chain = chain_from(g, i, taken);
    if (chain.size() < 2) continue;
    taken.insert(chain.begin(), chain.end());
    fused_at.emplace_back(chain.back(), fuse_chain(g, chain));
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    auto it = std::find_if(fused_at.begin(), fused_at.end(), [&](const auto& f) { return f.first == i; });
    if (it != fused_at.end())
      result.push_back(std::move(it->second));
    else if (!taken.count(i))
      result.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(result);
  g.remove_unused_values();
  return g;
}

}  // namespace tf::graph::passes

#include <algorithm>
#include <set>

#include "graph/constant_eval.h"
#include "graph/passes/fused_body.h"
#include "graph/passes/passes.h"

namespace tf::graph::passes {
namespace {

// Float nodes, and QuantizeLinear: a quantized model's DequantizeLinear -> op -> QuantizeLinear runs
// as one kernel over bytes, its integer intermediates exactly what the separate nodes would store.
bool fusible(const Graph& g, const Node& n) {
  if (!is_elementwise(n.op) || n.outputs.size() != 1) return false;
  return g.value(n.outputs[0]).dtype == DType::Float32 || n.op == "QuantizeLinear";
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
  // A chain that quantizes and goes on to a float result ends at its last QuantizeLinear: its
  // float output would be live beside its float input (where the bytes between the two used to be),
  // raising the model's peak memory; an 8-bit result keeps it narrow.
  const DType result = g.value(g.nodes[chain.back()].outputs[0]).dtype;
  if (result != DType::UInt8 && result != DType::Int8) {
    for (size_t k = chain.size() - 1; k-- > 0;) {
      if (g.nodes[chain[k]].op != "QuantizeLinear") continue;
      chain.resize(k + 1);
      break;
    }
  }
  return chain;
}

// The fusible producers of the chain's inputs that only the chain reads, with the shape of what reads
// them (a residual add's other operand, dequantized), join it, and so do theirs: the kernel reads
// their inputs instead of their outputs. In graph order, so the body computes each value before
// its readers and the chain's last node stays last.
void absorb_producers(const Graph& g, std::vector<size_t>& chain, std::set<size_t>& taken) {
  std::set<size_t> in_chain(chain.begin(), chain.end());
  for (size_t k = 0; k < chain.size(); ++k) {
    const Node& n = g.nodes[chain[k]];
    for (const auto& in : n.inputs) {
      if (in.empty() || g.use_count(in) != 1) continue;
      const int p = g.producer(in);
      if (p < 0) continue;
      const auto at = static_cast<size_t>(p);
      if (in_chain.count(at) || taken.count(at) || !fusible(g, g.nodes[at])) continue;
      if (g.value(in).shape != g.value(n.outputs[0]).shape) continue;
      chain.push_back(at);
      in_chain.insert(at);
    }
  }
  std::sort(chain.begin(), chain.end());
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
    auto chain = chain_from(g, i, taken);
    if (chain.size() < 2) continue;
    absorb_producers(g, chain, taken);
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

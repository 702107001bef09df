#include "graph/constant_eval.h"
#include "graph/passes/passes.h"

namespace tf::graph::passes {

Graph fold_constants(const Graph& in, bool keep_weight_dequantization) {
  Graph g = in;
  std::vector<Node> kept;
  std::map<std::string, std::string> alias;  // a bypassed Identity's output -> its input
  for (Node n : in.nodes) {
    for (auto& name : n.inputs) {
      if (auto it = alias.find(name); it != alias.end()) name = it->second;
    }
    if (n.op == "Identity" && !g.is_output(n.outputs[0])) {
      alias[n.outputs[0]] = n.inputs[0];
      continue;
    }
    if (!(keep_weight_dequantization && dequantizes_int8_weight(g, n)) && fold_if_constant(g, n)) continue;
    kept.push_back(std::move(n));
  }
  g.nodes = std::move(kept);
  g.remove_dead_nodes();
  return g;
}

}  // namespace tf::graph::passes

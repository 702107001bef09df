// What the passes that make fused_elementwise nodes share: a node of the region whose inputs come
// from outside it adds them, once each, as the fused node's inputs and its body's inputs.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "graph/graph.h"

namespace tf::graph::passes {

inline void add_outside_inputs(const Graph& g, const Node& n, const std::set<std::string>& internal, Node& fused,
                               Graph& body) {
  for (const auto& in : n.inputs) {
    if (in.empty() || internal.count(in) || std::count(fused.inputs.begin(), fused.inputs.end(), in)) continue;
    fused.inputs.push_back(in);
    const Value& v = g.value(in);
    body.set_value(Value{v.name, v.dtype, v.shape, nullptr});
    body.inputs.push_back(in);
  }
}

// The body of a fused node whose outer values were renamed (`renamed`: old name -> new, the new
// ones defined in `outer`): its inputs, its nodes' reads and writes and its outputs follow, each
// renamed value taking the outer one's type and shape. What the body computes inside is unchanged.
inline Graph rename_body_values(const Graph& body, const std::map<std::string, std::string>& renamed,
                                const Graph& outer) {
  Graph b = body;
  auto rename = [&](std::string& name) {
    const auto it = renamed.find(name);
    if (it == renamed.end()) return;
    name = it->second;
    const Value& v = outer.value(name);
    b.set_value(Value{v.name, v.dtype, v.shape, nullptr});
  };
  for (auto& in : b.inputs) rename(in);
  for (Node& n : b.nodes) {
    for (auto& in : n.inputs) rename(in);
    for (auto& out : n.outputs) rename(out);
  }
  for (auto& out : b.outputs) rename(out);
  b.remove_unused_values();
  return b;
}

}  // namespace tf::graph::passes

// What the passes that make fused_elementwise nodes share: a node of the region whose inputs come
// from outside it adds them, once each, as the fused node's inputs and its body's inputs.
#pragma once

#include <algorithm>
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

}  // namespace tf::graph::passes

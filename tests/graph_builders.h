// Hand-built graphs for the graph tests: a constant value, a node named after its op and output.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace tf::graph::testing {

inline void add_constant(Graph& g, const std::string& name, Tensor t) {
  Value v{name, t.dtype, t.shape, nullptr};
  v.data = std::make_shared<const Tensor>(std::move(t));
  g.set_value(std::move(v));
}

// Named "<op>_<first output>".
inline Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.name = op + "_" + out[0];
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

}  // namespace tf::graph::testing

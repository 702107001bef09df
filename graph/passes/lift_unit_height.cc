#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/passes/passes.h"
#include "graph/shape_inference.h"

namespace tf::graph::passes {
namespace {

Shape with_unit_height(Shape s) {
  s.insert(s.end() - 1, 1);
  return s;
}

bool is_reshape(const Graph& g, const Node& n, size_t in_rank, size_t out_rank) {
  return n.op == "Reshape" && n.outputs.size() == 1 && g.input_present(n, 0) &&
         g.value(n.inputs[0]).shape.size() == in_rank && g.value(n.outputs[0]).shape.size() == out_rank;
}

// Reshape [a,b,1,c] -> [a,b,c]
bool drops_unit_height(const Graph& g, const Node& n) {
  return is_reshape(g, n, 4, 3) && with_unit_height(g.value(n.outputs[0]).shape) == g.value(n.inputs[0]).shape;
}

// Reshape [a,b,c] -> [a,b,1,c]
bool adds_unit_height(const Graph& g, const Node& n) {
  return is_reshape(g, n, 3, 4) && with_unit_height(g.value(n.inputs[0]).shape) == g.value(n.outputs[0]).shape;
}

// An elementwise or batch-norm node on [N,C,L] whose inputs of that shape all have a [N,C,1,L]
// twin; the others have rank 0 or 1, which broadcast along the last axis (elementwise) or the
// channels (batch norm's parameters) alike in both ranks.
bool liftable(const Graph& g, const Node& n, const std::map<std::string, std::string>& twin) {
  const FusionRole role = fusion_role(n.op);
  if ((!role.elementwise && role.epilogue != Epilogue::BatchNorm) || n.outputs.size() != 1) return false;
  const Shape& out = g.value(n.outputs[0]).shape;
  if (out.size() != 3) return false;
  bool any = false;
  for (const auto& in : n.inputs) {
    if (in.empty()) continue;
    const Shape& s = g.value(in).shape;
    if (twin.count(in) && s == out) {
      any = true;
    } else if (s.size() > 1) {
      return false;
    }
  }
  return any;
}

}  // namespace

Graph lift_unit_height(const Graph& in) {
  Graph g = in;
  std::map<std::string, std::string> twin;    // a [N,C,L] value -> the same bytes as [N,C,1,L]
  std::map<std::string, std::string> rename;  // a Reshape's [N,C,1,L] output -> the twin it equals
  std::vector<Node> nodes;
  for (Node n : in.nodes) {
    for (auto& i : n.inputs) {
      if (auto it = rename.find(i); it != rename.end()) i = it->second;
    }
    if (drops_unit_height(g, n)) {
      twin[n.outputs[0]] = n.inputs[0];
    } else if (adds_unit_height(g, n) && twin.count(n.inputs[0]) && !g.is_output(n.outputs[0])) {
      rename[n.outputs[0]] = twin.at(n.inputs[0]);
      continue;
    } else if (liftable(g, n, twin)) {
      Node wide = n;
      wide.name = g.unique_name(n.name + "_4d");
      for (auto& i : wide.inputs) {
        if (twin.count(i)) i = twin.at(i);
      }
      wide.outputs = {g.unique_name(n.outputs[0] + "_4d")};
      g.set_value(Value{wide.outputs[0], DType::Float32, {}, nullptr});
      infer_node_shapes(g, wide);
      const std::string target = rules::add_constant(g, n.outputs[0] + "_3d_shape", Tensor::ints({3}, {0, 0, -1}));
      Node back = rules::helper_node(g, "Reshape", {wide.outputs[0], target}, n.outputs[0] + "_3d");
      back.outputs = {n.outputs[0]};
      twin[n.outputs[0]] = wide.outputs[0];
      nodes.push_back(std::move(wide));
      nodes.push_back(std::move(back));
      continue;
    }
    nodes.push_back(std::move(n));
  }
  g.nodes = std::move(nodes);
  g.remove_dead_nodes();
  return g;
}

}  // namespace tf::graph::passes

// DepthToSpace and SpaceToDepth: each a Reshape to rank 6, a Transpose and a Reshape back, the
// form ONNX's definition gives (the transpose kernel takes rank 6; the reshapes are aliases).
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using rules::fail;

struct Plan {
  Shape split;                // the rank-6 view of the input
  std::vector<int64_t> perm;  // its transpose
  Shape out;                  // the output's extents
};

Plan plan(const Graph& g, const Node& n, bool to_space) {
  const Value& x = rules::in(g, n, 0);
  rules::require_rank(n, x, 4, "input");
  const int64_t b = n.attr_int("blocksize", 0);
  if (b <= 0) fail(n, "attribute 'blocksize' = " + std::to_string(b) + " must be positive");
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (to_space) {
    if (C % (b * b) != 0)
      fail(n, "channels " + std::to_string(C) + " are not a multiple of blocksize^2 = " + std::to_string(b * b));
    const int64_t c = C / (b * b);
    const std::string mode = n.attr_string("mode", "DCR");
    if (mode == "DCR") return {{N, b, b, c, H, W}, {0, 3, 4, 1, 5, 2}, {N, c, H * b, W * b}};
    if (mode == "CRD") return {{N, c, b, b, H, W}, {0, 1, 4, 2, 5, 3}, {N, c, H * b, W * b}};
    fail(n, "attribute 'mode' = '" + mode + "' is not DCR or CRD");
  }
  if (H % b != 0 || W % b != 0)
    fail(n, "height " + std::to_string(H) + " and width " + std::to_string(W) + " must be multiples of blocksize " +
                std::to_string(b));
  return {{N, C, H / b, b, W / b, b}, {0, 3, 5, 1, 2, 4}, {N, C * b * b, H / b, W / b}};
}

Node reshape(Graph& g, const Node& n, const std::string& from, const Shape& to, const std::string& stem) {
  Node r = rules::helper_node(
      g, "Reshape",
      {from, rules::add_constant(g, n.name + "_shape", Tensor::ints({static_cast<int64_t>(to.size())}, to))}, stem);
  r.attrs["allowzero"] = int64_t{0};
  return r;
}

std::vector<Node> normalize(Graph& g, Node n, bool to_space) {
  const Plan p = plan(g, n, to_space);
  Node split = reshape(g, n, n.inputs.at(0), p.split, n.name + "_6d");
  Node t = rules::helper_node(g, "Transpose", {split.outputs[0]}, n.name + "_moved");
  t.attrs["perm"] = p.perm;
  Node back = reshape(g, n, t.outputs[0], p.out, n.name + "_out");
  back.outputs = {n.outputs.at(0)};
  return {std::move(split), std::move(t), std::move(back)};
}

OpDef op(const std::string& name, std::vector<int> versions, bool to_space) {
  OpDef d;
  d.name = name;
  d.versions = std::move(versions);
  d.attributes = {"blocksize", "mode"};
  d.normalize = [to_space](Graph& g, Node n, const OpVersion&) { return normalize(g, std::move(n), to_space); };
  return d;
}

}  // namespace

void add_depth_space_ops(std::vector<OpDef>& ops) {
  ops.push_back(op("DepthToSpace", {1, 11, 13}, true));
  ops.push_back(op("SpaceToDepth", {1, 13}, false));
}

}  // namespace tf::graph

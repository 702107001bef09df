// OneHot: output[..., d, ...] (d on `axis`) is values[1] where the index equals d, else values[0].
// Negative indices count from depth; any index outside -depth..depth-1 is all values[0]. The depth
// fixes the output's shape, so it must be a constant; the indices may be computed. With the indices
// seen with a 1 inserted at `axis` and classes 0..depth-1 along it (a constant), the op becomes
//
//   hot      Or(Equal(indices, classes), Equal(indices, classes - depth))
//   output   Where(hot, on, off)
//
// elementwise kernels in the indices' own type, so a fractional index matches no class, as in
// ONNX's reference.
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;

Tensor scalar_of(DType t, double v) {
  return t == DType::Float32 ? Tensor::floats({}, {static_cast<float>(v)})
                             : Tensor::ints({}, {static_cast<int64_t>(v)}, t);
}

int64_t depth_of(const Graph& g, const Node& n) {
  const Tensor* t = g.constant(rules::in(g, n, 1).name);
  if (!t) fail(n, "input 1 (depth) must be a constant: it fixes the output's shape");
  if (t->size() != 1) fail(n, "input 1 (depth) holds " + std::to_string(t->size()) + " values; it is a scalar");
  const double d = t->at(0);
  if (!(d >= 1)) fail(n, "input 1 (depth) = " + std::to_string(d) + " is not a positive class count");
  // Classes compare exactly in float32 up to 2^24 (and the class constants stay small).
  if (d > double(1 << 24)) fail(n, "input 1 (depth) = " + std::to_string(d) + " is above 2^24 classes");
  return static_cast<int64_t>(d);
}

// values[i] as a scalar: a constant when values is one, else a Gather of it.
std::string value_at(Graph& g, const Node& n, int64_t i, std::vector<Node>& nodes) {
  const Value& v = rules::in(g, n, 2);
  if (element_count(v.shape) != 2 || v.shape.size() != 1)
    fail(n, "input 2 (values) " + shape_str(v.shape) + " is not [off, on]");
  const std::string stem = n.name + (i ? "_on" : "_off");
  if (const Tensor* t = g.constant(v.name)) return rules::add_constant(g, stem, scalar_of(v.dtype, t->at(i)));
  Node pick =
      rules::helper_node(g, "Gather", {v.name, rules::add_constant(g, stem + "_index", Tensor::ints({}, {i}))}, stem);
  pick.attrs["axis"] = int64_t{0};
  nodes.push_back(pick);
  return pick.outputs[0];
}

std::vector<Node> normalize_one_hot(Graph& g, Node n) {
  const Value& idx = rules::in(g, n, 0);
  if (idx.dtype == DType::Bool) fail(n, "indices '" + idx.name + "' are bool; OneHot takes numbers");
  const int64_t depth = depth_of(g, n);
  const int64_t rank = static_cast<int64_t>(idx.shape.size()) + 1;
  const int64_t axis = normalize_axis(n.attr_int("axis", -1), rank, n, "axis");
  const DType t = idx.dtype;
  std::vector<Node> nodes;
  auto add = [&](const std::string& op, std::vector<std::string> inputs, const std::string& stem) {
    nodes.push_back(rules::helper_node(g, op, std::move(inputs), n.name + "_" + stem));
    return nodes.back().outputs[0];
  };
  auto constant = [&](const std::string& stem, Tensor c) {
    return rules::add_constant(g, n.name + "_" + stem, std::move(c));
  };
  Shape column = idx.shape;
  column.insert(column.begin() + axis, 1);
  const std::string shaped =
      add("Reshape", {idx.name, constant("column_shape", Tensor::ints({rank}, column))}, "column");
  // Class d along the axis, and d - depth (the negative index that means it).
  Shape along(static_cast<size_t>(rank - axis), 1);
  along[0] = depth;
  auto classes = [&](int64_t from) {
    std::vector<int64_t> c;
    for (int64_t d = 0; d < depth; ++d) c.push_back(from + d);
    return t == DType::Float32 ? Tensor::floats(along, std::vector<float>(c.begin(), c.end()))
                               : Tensor::ints(along, c, t);
  };
  const std::string hot =
      add("Or",
          {add("Equal", {shaped, constant("classes", classes(0))}, "is_class"),
           add("Equal", {shaped, constant("classes_from_end", classes(-depth))}, "is_class_from_end")},
          "hot");
  const std::string off = value_at(g, n, 0, nodes), on = value_at(g, n, 1, nodes);
  Node out = rules::helper_node(g, "Where", {hot, on, off}, n.name + "_selected");
  out.outputs = {n.outputs.at(0)};
  nodes.push_back(std::move(out));
  return nodes;
}

}  // namespace

void add_one_hot_ops(std::vector<OpDef>& ops) {
  OpDef d;
  d.name = "OneHot";
  d.versions = {9, 11};
  d.attributes = {"axis"};
  d.normalize = [](Graph& g, Node n, const OpVersion&) { return normalize_one_hot(g, std::move(n)); };
  ops.push_back(d);
}

}  // namespace tf::graph

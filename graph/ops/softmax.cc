// Softmax, and the axis rules LogSoftmax and Hardmax share with it. Before opset 13 the op
// coerces its input to 2-D at `axis` ([prod(dims < axis), prod(dims >= axis)]) and works on rows of
// that; from 13 it works along the one axis. The row kernel takes the last axis, so the canonical
// node is the op on the last axis, between a Reshape pair (before 13: aliases, free) or a
// Transpose pair (from 13, another axis than the last) that the normalization adds.
#include <functional>
#include <numeric>

#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

Node reshaped(Graph& g, const std::string& value, const Shape& shape, const std::string& stem) {
  const std::string target = rules::add_constant(g, stem + "_shape", Tensor::ints({static_cast<int64_t>(shape.size())}, shape));
  return rules::helper_node(g, "Reshape", {value, target}, stem);
}

Node permuted(Graph& g, const std::string& value, const std::vector<int64_t>& perm, const std::string& stem) {
  Node t = rules::helper_node(g, "Transpose", {value}, stem);
  t.attrs["perm"] = perm;
  return t;
}

// The op on the last axis of a value made for it, and the node that brings the result back to the
// output: [before, op, after].
std::vector<Node> around_last_axis(Graph& g, Node n, Node before, Shape restore_shape, std::vector<int64_t> restore_perm) {
  const std::string out = n.outputs.at(0);
  n.inputs[0] = before.outputs[0];
  n.outputs = {g.unique_name(out + "_rows")};
  g.set_value(Value{n.outputs[0], DType::Float32, {}, nullptr});
  n.attrs["axis"] = int64_t{-1};
  Node after = restore_perm.empty() ? reshaped(g, n.outputs[0], restore_shape, out + "_restored") : permuted(g, n.outputs[0], restore_perm, out + "_restored");
  after.outputs = {out};
  return {std::move(before), std::move(n), std::move(after)};
}

std::vector<Node> normalize_axis_op(Graph& g, Node n, const OpVersion& v) {
  const Shape x = rules::in(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  if (rank == 0) rules::fail(n, "input is a scalar; " + n.op + " needs an axis");
  const bool coerce_2d = v.since < 13;
  const int64_t axis = normalize_axis(n.attr_int("axis", coerce_2d ? 1 : -1), rank, n, "axis");
  n.attrs["axis"] = int64_t{-1};
  if (axis == rank - 1) return {std::move(n)};
  if (coerce_2d) {
    const int64_t outer = std::accumulate(x.begin(), x.begin() + axis, int64_t{1}, std::multiplies<>());
    const Shape rows = {outer, element_count(x) / std::max<int64_t>(outer, 1)};
    Node before = reshaped(g, n.inputs.at(0), rows, n.outputs.at(0) + "_2d");
    return around_last_axis(g, std::move(n), std::move(before), x, {});
  }
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[axis], perm[rank - 1]);  // its own inverse
  Node before = permuted(g, n.inputs.at(0), perm, n.outputs.at(0) + "_axis_last");
  return around_last_axis(g, std::move(n), std::move(before), {}, perm);
}

OpDef row_op(const std::string& name, const std::string& kernel) {
  OpDef d;
  d.name = name;
  d.versions = {1, 11, 13};
  d.attributes = {"axis"};
  d.normalize = normalize_axis_op;
  d.infer = [](Graph& g, const Node& n) { rules::same_as_input(g, n); };
  d.lower = [kernel](const Graph& g, const Node& n) {
    const Shape& x = g.input_of(n, 0).shape;
    lowering::last_axis_only(g, n, "axis", n.attr_int("axis", -1));
    return lowering::call(lowering::named_call(n, kernel, {{"rows", lowering::leading_product(x, 1)}, {"cols", x.back()}}, lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

}  // namespace

// LogSoftmax and Hardmax are row_op entries too once a row kernel computes them.
void add_softmax_ops(std::vector<OpDef>& ops) { ops.push_back(row_op("Softmax", "softmax")); }

}  // namespace tf::graph

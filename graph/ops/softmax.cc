// Softmax, LogSoftmax and Hardmax. Before opset 13 each coerces its input to 2-D at `axis`
// ([prod(dims < axis), prod(dims >= axis)]) and works on rows of that; from 13 it works along the
// one axis. The kernels (softmax, log_softmax, hardmax) take any axis as the middle one of
// [rows, cols, inner], so the canonical node is the op along one non-negative axis: the old
// semantics on another axis than the last become that op on axis 1 of the 2-D view, between a
// Reshape pair (aliases, free).
#include <functional>
#include <numeric>

#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

Node reshaped(Graph& g, const std::string& value, const Shape& shape, const std::string& stem) {
  const std::string target =
      rules::add_constant(g, stem + "_shape", Tensor::ints({static_cast<int64_t>(shape.size())}, shape));
  return rules::helper_node(g, "Reshape", {value, target}, stem);
}

// The op on the rows of the input seen as [outer, rest]: [reshape, op, reshape back].
std::vector<Node> on_coerced_rows(Graph& g, Node n, const Shape& x, int64_t axis) {
  const int64_t outer = std::accumulate(x.begin(), x.begin() + axis, int64_t{1}, std::multiplies<>());
  const Shape rows = {outer, element_count(x) / std::max<int64_t>(outer, 1)};
  const std::string out = n.outputs.at(0);
  Node before = reshaped(g, n.inputs.at(0), rows, out + "_2d");
  n.inputs[0] = before.outputs[0];
  n.outputs = {g.unique_name(out + "_rows")};
  g.set_value(Value{n.outputs[0], DType::Float32, {}, nullptr});
  n.attrs["axis"] = int64_t{1};
  Node after = reshaped(g, n.outputs[0], x, out + "_restored");
  after.outputs = {out};
  return {std::move(before), std::move(n), std::move(after)};
}

std::vector<Node> normalize_axis_op(Graph& g, Node n, const OpVersion& v) {
  const Shape x = rules::in(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  if (rank == 0) rules::fail(n, "input is a scalar; " + n.op + " needs an axis");
  const bool coerce_2d = v.since < 13;
  const int64_t axis = normalize_axis(n.attr_int("axis", coerce_2d ? 1 : -1), rank, n, "axis");
  n.attrs["axis"] = axis;
  if (!coerce_2d || axis == rank - 1) return {std::move(n)};
  return on_coerced_rows(g, std::move(n), x, axis);
}

// [rows, cols, inner]: the extents before the axis, the axis, the extents after it.
NodeLowering lower_axis_op(const Graph& g, const Node& n, const std::string& kernel) {
  const Value& xv = g.input_of(n, 0);
  if (xv.dtype != DType::Float32)
    rules::fail(n, "input '" + xv.name + "' is " + dtype_name(xv.dtype) + "; " + kernel + " takes float32");
  const Shape& x = xv.shape;
  const int64_t axis = normalize_axis(n.attr_int("axis", -1), static_cast<int64_t>(x.size()), n, "axis");
  const int64_t rows = element_count(Shape(x.begin(), x.begin() + axis));
  const int64_t inner = element_count(Shape(x.begin() + axis + 1, x.end()));
  return lowering::call(lowering::named_call(n, kernel, {{"rows", rows}, {"cols", x[axis]}, {"inner", inner}},
                                             lowering::with_output({n.inputs[0]}, n)));
}

OpDef axis_op(const std::string& name, const std::string& kernel) {
  OpDef d;
  d.name = name;
  d.versions = {1, 11, 13};
  d.attributes = {"axis"};
  d.normalize = normalize_axis_op;
  d.infer = [](Graph& g, const Node& n) { rules::same_as_input(g, n); };
  d.lower = [kernel](const Graph& g, const Node& n) { return lower_axis_op(g, n, kernel); };
  return d;
}

}  // namespace

void add_softmax_ops(std::vector<OpDef>& ops) {
  ops.push_back(axis_op("Softmax", "softmax"));
  ops.push_back(axis_op("LogSoftmax", "log_softmax"));
  ops.push_back(axis_op("Hardmax", "hardmax"));
}

}  // namespace tf::graph

// Ops that move data between positions: Transpose, Concat, Gather (constant indices along one
// axis; run only on constants, i.e. shape arithmetic, for now).
#include <set>

#include "graph/constant_eval.h"
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;
using rules::in;

std::vector<int64_t> permutation(const Node& n, size_t rank) {
  std::vector<int64_t> perm = n.attr_ints("perm", {});
  if (perm.empty()) {
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
  }
  return perm;
}

Shape transpose_shape(const Graph& g, const Node& n) {
  const Value& x = in(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const std::vector<int64_t> perm = permutation(n, x.shape.size());
  if (static_cast<int64_t>(perm.size()) != rank) fail(n, "attribute 'perm' has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::set<int64_t> seen;
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || !seen.insert(p).second) fail(n, "attribute 'perm' is not a permutation of 0.." + std::to_string(rank - 1));
    out.push_back(x.shape[p]);
  }
  return out;
}

NodeLowering lower_transpose(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const std::vector<int64_t> perm = permutation(n, x.size());
  lowering::Named e = {{"rank", static_cast<int64_t>(x.size())}};
  for (size_t k = 0; k < x.size(); ++k) {
    e["d" + std::to_string(k)] = x[k];
    e["p" + std::to_string(k)] = perm.at(k);
  }
  return lowering::call(lowering::named_call(n, "transpose", e, lowering::with_output({n.inputs[0]}, n)));
}

Shape concat_shape(const Graph& g, const Node& n) {
  if (n.inputs.empty()) fail(n, "has no inputs");
  Shape out = in(g, n, 0).shape;
  if (out.empty()) fail(n, "input 0 is a scalar; Concat joins tensors of rank 1 or more");
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(out.size()), n, "axis");
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    const Shape& s = in(g, n, i).shape;
    if (s.size() != out.size()) fail(n, "inputs differ in rank");
    for (size_t d = 0; d < s.size(); ++d) {
      if (static_cast<int64_t>(d) == axis) continue;
      if (s[d] != out[d]) fail(n, "input " + std::to_string(i) + " " + shape_str(s) + " differs from " + shape_str(out) + " off the axis");
    }
    out[axis] += s[axis];
  }
  return out;
}

Tensor concat(const Node& n, const std::vector<const Tensor*>& ins, const Shape& out_shape) {
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(out_shape.size()), n, "axis");
  const int64_t outer = element_count(Shape(out_shape.begin(), out_shape.begin() + axis));
  Tensor t;
  t.dtype = ins[0]->dtype;
  t.shape = out_shape;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* x : ins) {
      if (x->dtype != t.dtype) fail(n, "inputs differ in dtype");
      const int64_t chunk = element_count(Shape(x->shape.begin() + axis, x->shape.end()));
      if (x->dtype == DType::Float32) t.f32.insert(t.f32.end(), x->f32.begin() + o * chunk, x->f32.begin() + (o + 1) * chunk);
      else t.i64.insert(t.i64.end(), x->i64.begin() + o * chunk, x->i64.begin() + (o + 1) * chunk);
    }
  }
  return t;
}

NodeLowering lower_concat(const Graph& g, const Node& n) {
  const Shape& out = g.output_of(n).shape;
  int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(out.size());
  lowering::Named e = {{"rank", static_cast<int64_t>(out.size())}, {"axis", axis}, {"inputs", static_cast<int64_t>(n.inputs.size())}};
  for (size_t k = 0; k < out.size(); ++k) e["d" + std::to_string(k)] = out[k];
  for (size_t i = 0; i < n.inputs.size(); ++i) e["a" + std::to_string(i)] = g.input_of(n, i).shape.at(static_cast<size_t>(axis));
  return lowering::call(lowering::named_call(n, "concat", e, lowering::with_output(n.inputs, n)));
}

Shape gather_shape(const Graph& g, const Node& n) {
  const Shape& data = in(g, n, 0).shape;
  const Shape& idx = in(g, n, 1).shape;
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(data.size()), n, "axis");
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  return out;
}

Tensor gather(const Node& n, const Tensor& data, const Tensor& indices, const Shape& out_shape) {
  if (indices.dtype != DType::Int64) fail(n, "indices must be int64");
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(data.shape.size()), n, "axis");
  const int64_t outer = element_count(Shape(data.shape.begin(), data.shape.begin() + axis));
  const int64_t inner = element_count(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  const int64_t extent = data.shape[axis];
  Tensor t;
  t.dtype = data.dtype;
  t.shape = out_shape;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : indices.i64) {
      const int64_t j = i < 0 ? i + extent : i;
      if (j < 0 || j >= extent) fail(n, "index " + std::to_string(i) + " is out of range for extent " + std::to_string(extent));
      const int64_t from = (o * extent + j) * inner;
      if (data.dtype == DType::Float32) t.f32.insert(t.f32.end(), data.f32.begin() + from, data.f32.begin() + from + inner);
      else t.i64.insert(t.i64.end(), data.i64.begin() + from, data.i64.begin() + from + inner);
    }
  }
  return t;
}

}  // namespace

void add_data_movement_ops(std::vector<OpDef>& ops) {
  OpDef t;
  t.name = "Transpose";
  t.versions = {1, 13, 21};
  t.attributes = {"perm"};
  t.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, transpose_shape(g, n)); };
  t.fold = [](const Graph&, const Node& n, const std::vector<const Tensor*>& inputs) {
    return transpose(*inputs.at(0), permutation(n, inputs.at(0)->shape.size()));
  };
  t.lower = lower_transpose;
  ops.push_back(t);

  OpDef c;
  c.name = "Concat";
  c.versions = {4, 11, 13};
  c.attributes = {"axis"};
  c.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, concat_shape(g, n)); };
  c.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) { return concat(n, inputs, g.value(n.outputs.at(0)).shape); };
  c.lower = lower_concat;
  ops.push_back(c);

  OpDef ga;
  ga.name = "Gather";
  ga.versions = {1, 11, 13};
  ga.attributes = {"axis"};
  ga.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, gather_shape(g, n)); };
  ga.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    if (inputs.size() < 2 || !inputs[1]) fail(n, "input 1 (indices) is missing");
    return gather(n, *inputs[0], *inputs[1], g.value(n.outputs.at(0)).shape);
  };
  ops.push_back(ga);
}

}  // namespace tf::graph

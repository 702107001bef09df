// Ops that move data between positions: Transpose, Concat, Gather and GatherElements (along one
// axis, as the gather kernels over [rows, cols, inner] with float32 indices: constant int64 indices
// are converted when lowering, runtime ones by a Cast the normalization puts before the node).
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
  if (static_cast<int64_t>(perm.size()) != rank)
    fail(n, "attribute 'perm' has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::set<int64_t> seen;
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || !seen.insert(p).second)
      fail(n, "attribute 'perm' is not a permutation of 0.." + std::to_string(rank - 1));
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
      if (s[d] != out[d])
        fail(n,
             "input " + std::to_string(i) + " " + shape_str(s) + " differs from " + shape_str(out) + " off the axis");
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
      t.append(*x, o * chunk, chunk);
    }
  }
  return t;
}

NodeLowering lower_concat(const Graph& g, const Node& n) {
  const Shape& out = g.output_of(n).shape;
  int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(out.size());
  lowering::Named e = {
      {"rank", static_cast<int64_t>(out.size())}, {"axis", axis}, {"inputs", static_cast<int64_t>(n.inputs.size())}};
  for (size_t k = 0; k < out.size(); ++k) e["d" + std::to_string(k)] = out[k];
  for (size_t i = 0; i < n.inputs.size(); ++i)
    e["a" + std::to_string(i)] = g.input_of(n, i).shape.at(static_cast<size_t>(axis));
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

// An index as ONNX reads it: negative from the end, refused outside the extent.
int64_t index_in(const Node& n, double raw, int64_t extent) {
  const auto i = static_cast<int64_t>(raw);
  const int64_t j = i < 0 ? i + extent : i;
  if (j < 0 || j >= extent)
    fail(n, "index " + std::to_string(i) + " is out of range for extent " + std::to_string(extent));
  return j;
}

Tensor gather(const Node& n, const Tensor& data, const Tensor& indices, const Shape& out_shape) {
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(data.shape.size()), n, "axis");
  const int64_t outer = element_count(Shape(data.shape.begin(), data.shape.begin() + axis));
  const int64_t inner = element_count(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  const int64_t extent = data.shape[axis];
  Tensor t;
  t.dtype = data.dtype;
  t.shape = out_shape;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < indices.size(); ++k) {
      const int64_t j = index_in(n, indices.at(k), extent);
      const int64_t from = (o * extent + j) * inner;
      t.append(data, from, inner);
    }
  }
  return t;
}

struct Around {
  int64_t rows = 1, cols = 1, inner = 1;  // the extents before, at and after the axis
};

Around around(const Shape& s, int64_t axis) {
  Around a;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
    (d < axis ? a.rows : d == axis ? a.cols : a.inner) *= s[d];
  return a;
}

int64_t gather_axis(const Graph& g, const Node& n) {
  return normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(in(g, n, 0).shape.size()), n, "axis");
}

// The kernels index with float32: runtime int64 or int32 indices go through a Cast to float32.
std::vector<Node> normalize_gather(Graph& g, Node n, const OpVersion&) {
  const Value& idx = in(g, n, 1);
  if (idx.dtype != DType::Int64 && idx.dtype != DType::Int32)
    fail(n, "indices '" + idx.name + "' must be int64 or int32");
  n.attrs["axis"] = gather_axis(g, n);
  if (idx.is_constant()) return {std::move(n)};
  Node cast = rules::helper_node(g, "Cast", {n.inputs[1]}, n.inputs[1] + "_f32");
  cast.attrs["to"] = std::string("float32");
  n.inputs[1] = cast.outputs[0];
  return {std::move(cast), std::move(n)};
}

// The indices argument: the float32 value, or constant integer indices (checked against the
// extent) as a float32 constant beside the graph's.
std::string float_indices(const Graph& g, const Node& n, int64_t extent, KernelCall* c) {
  const Value& idx = g.input_of(n, 1);
  if (idx.dtype == DType::Float32) return idx.name;
  const Tensor* t = g.constant(idx.name);
  if (!t) fail(n, "indices '" + idx.name + "' must be float32 or a constant when lowered");
  if (extent > (int64_t{1} << 24))
    fail(n, "extent " + std::to_string(extent) + " along the axis is above 2^24 (float32 indices)");
  std::vector<float> v;
  for (int64_t k = 0; k < t->size(); ++k) v.push_back(static_cast<float>(index_in(n, t->at(k), extent)));
  std::string name = g.unique_name(n.name + "_indices");
  c->extra_constants.emplace_back(name, Tensor::floats(t->shape, std::move(v)));
  return name;
}

NodeLowering lower_gather(const Graph& g, const Node& n, bool elements) {
  const Value& x = g.input_of(n, 0);
  if (x.dtype != DType::Float32)
    fail(n, "input '" + x.name + "' is " + std::string(dtype_name(x.dtype)) +
                "; the gather kernels copy float32 (constants of any type fold)");
  const int64_t axis = gather_axis(g, n);
  const Around a = around(x.shape, axis);
  const Shape& idx = g.input_of(n, 1).shape;
  int64_t count = element_count(idx);
  if (elements) {
    const Around b = around(idx, axis);
    if (b.rows != a.rows || b.inner != a.inner || idx.size() != x.shape.size()) {
      fail(n, "indices " + shape_str(idx) + " differ from data " + shape_str(x.shape) +
                  " off the axis: the gather_elements kernel takes that only");
    }
    count = b.cols;
  }
  if (count == 0 || a.rows * a.inner == 0) fail(n, "reads or writes no elements");
  KernelCall c;
  const std::string indices = float_indices(g, n, a.cols, &c);
  KernelCall k = lowering::named_call(n, elements ? "gather_elements" : "gather",
                                      {{"rows", a.rows}, {"cols", a.cols}, {"inner", a.inner}, {"count", count}},
                                      lowering::with_output({n.inputs[0], indices}, n));
  k.extra_constants = std::move(c.extra_constants);
  return lowering::call(std::move(k));
}

Tensor gather_elements(const Node& n, const Tensor& data, const Tensor& indices) {
  const int64_t axis = n.attr_int("axis", 0);
  const Around a = around(data.shape, axis);
  Tensor t;
  t.dtype = data.dtype;
  t.shape = indices.shape;
  // Indices and data have one rank; off the axis the indices' extents are at most the data's.
  std::vector<int64_t> stride(data.shape.size(), 1);
  for (size_t k = data.shape.size(); k-- > 1;) stride[k - 1] = stride[k] * data.shape[k];
  std::vector<int64_t> j(indices.shape.size(), 0);
  for (int64_t f = 0; f < indices.size(); ++f) {
    int64_t from = 0;
    for (size_t k = 0; k < j.size(); ++k) {
      from += (static_cast<int64_t>(k) == axis ? index_in(n, indices.at(f), a.cols) : j[k]) * stride[k];
    }
    t.append(data, from);
    for (size_t k = j.size(); k-- > 0 && ++j[k] == indices.shape[k];) j[k] = 0;
  }
  return t;
}

Shape gather_elements_shape(const Graph& g, const Node& n) {
  const Shape& data = in(g, n, 0).shape;
  const Shape& idx = in(g, n, 1).shape;
  if (idx.size() != data.size())
    fail(n, "indices " + shape_str(idx) + " and data " + shape_str(data) + " differ in rank");
  const int64_t axis = gather_axis(g, n);
  for (size_t k = 0; k < idx.size(); ++k) {
    if (static_cast<int64_t>(k) != axis && idx[k] > data[k])
      fail(n, "indices " + shape_str(idx) + " exceed data " + shape_str(data) + " on axis " + std::to_string(k));
  }
  return idx;
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
  c.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return concat(n, inputs, g.value(n.outputs.at(0)).shape);
  };
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
  ga.normalize = normalize_gather;
  ga.lower = [](const Graph& g, const Node& n) { return lower_gather(g, n, false); };
  ops.push_back(ga);

  OpDef ge;
  ge.name = "GatherElements";
  ge.versions = {11, 13};
  ge.attributes = {"axis"};
  ge.normalize = normalize_gather;
  ge.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, gather_elements_shape(g, n)); };
  ge.fold = [](const Graph&, const Node& n, const std::vector<const Tensor*>& inputs) {
    if (inputs.size() < 2 || !inputs[1]) fail(n, "input 1 (indices) is missing");
    return gather_elements(n, *inputs[0], *inputs[1]);
  };
  ge.lower = [](const Graph& g, const Node& n) { return lower_gather(g, n, true); };
  ops.push_back(ge);
}

}  // namespace tf::graph

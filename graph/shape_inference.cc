#include "graph/shape_inference.h"

#include <algorithm>
#include <functional>
#include <set>

#include "compiler/error.h"

namespace tf::graph {
namespace {

[[noreturn]] void fail(const Node& n, const std::string& why) { throw CompileError(n.describe() + ": " + why); }

const Value& in(const Graph& g, const Node& n, size_t i) {
  if (!g.input_present(n, i)) fail(n, "input " + std::to_string(i) + " is missing");
  return g.input_of(n, i);
}

void set_out(Graph& g, const Node& n, size_t i, DType t, Shape s) {
  if (i >= n.outputs.size() || n.outputs[i].empty()) return;
  for (int64_t d : s) {
    if (d < 0) fail(n, "output " + std::to_string(i) + " would have a negative extent " + shape_str(s));
  }
  Value& v = g.has_value(n.outputs[i]) ? g.value(n.outputs[i]) : g.set_value(Value{n.outputs[i], t, {}, nullptr});
  v.dtype = t;
  v.shape = std::move(s);
}

void require_rank(const Node& n, const Value& v, size_t rank, const std::string& what) {
  if (v.shape.size() != rank) {
    fail(n, what + " '" + v.name + "' has shape " + shape_str(v.shape) + "; rank " + std::to_string(rank) + " is supported");
  }
}

Shape matmul_shape(const Graph& g, const Node& n) {
  const Value& a = in(g, n, 0);
  const Value& b = in(g, n, 1);
  if (a.shape.size() < 2 || b.shape.size() < 2) fail(n, "operands of rank 1 are not supported (A " + shape_str(a.shape) + ", B " + shape_str(b.shape) + ")");
  const int64_t k = a.shape.back();
  if (b.shape[b.shape.size() - 2] != k) {
    fail(n, "inner extents differ: A " + shape_str(a.shape) + ", B " + shape_str(b.shape));
  }
  Shape batch_a(a.shape.begin(), a.shape.end() - 2), batch_b(b.shape.begin(), b.shape.end() - 2);
  Shape out = broadcast_shapes(batch_a, batch_b, n);
  out.push_back(a.shape[a.shape.size() - 2]);
  out.push_back(b.shape.back());
  return out;
}

Shape gemm_shape(const Graph& g, const Node& n) {
  const Value& a = in(g, n, 0);
  const Value& b = in(g, n, 1);
  require_rank(n, a, 2, "A");
  require_rank(n, b, 2, "B");
  const bool ta = n.attr_int("transA", 0), tb = n.attr_int("transB", 0);
  const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const int64_t kb = tb ? b.shape[1] : b.shape[0], nn = tb ? b.shape[0] : b.shape[1];
  if (k != kb) fail(n, "inner extents differ: A " + shape_str(a.shape) + ", B " + shape_str(b.shape) + " (transA " + std::to_string(ta) + ", transB " + std::to_string(tb) + ")");
  if (g.input_present(n, 2)) broadcast_shapes(in(g, n, 2).shape, {m, nn}, n);
  return {m, nn};
}

Shape conv_shape(const Graph& g, const Node& n) {
  const Value& x = in(g, n, 0);
  const Value& w = in(g, n, 1);
  require_rank(n, x, 4, "input");
  require_rank(n, w, 4, "weight");
  const auto strides = n.attr_ints("strides", {1, 1}), dil = n.attr_ints("dilations", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  const int64_t group = n.attr_int("group", 1);
  if (group <= 0 || x.shape[1] % group != 0 || w.shape[0] % group != 0) fail(n, "attribute 'group' = " + std::to_string(group) + " does not divide the channels");
  if (w.shape[1] * group != x.shape[1]) {
    fail(n, "weight " + shape_str(w.shape) + " does not match input channels " + std::to_string(x.shape[1]) + " with group " + std::to_string(group));
  }
  const int64_t oh = window_output(x.shape[2], w.shape[2], strides[0], dil[0], pads[0], pads[2], false);
  const int64_t ow = window_output(x.shape[3], w.shape[3], strides[1], dil[1], pads[1], pads[3], false);
  if (oh <= 0 || ow <= 0) fail(n, "the kernel is larger than the padded input " + shape_str(x.shape));
  if (g.input_present(n, 2) && in(g, n, 2).shape != Shape{w.shape[0]}) fail(n, "bias " + shape_str(in(g, n, 2).shape) + " is not [" + std::to_string(w.shape[0]) + "]");
  return {x.shape[0], w.shape[0], oh, ow};
}

Shape pool_shape(const Graph& g, const Node& n) {
  const Value& x = in(g, n, 0);
  require_rank(n, x, 4, "input");
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (k.size() != 2) fail(n, "attribute 'kernel_shape' must have 2 extents");
  if (strides.size() != 2) fail(n, "attribute 'strides' must have 2 extents, got " + std::to_string(strides.size()));
  if (pads.size() != 4) fail(n, "attribute 'pads' must have 4 extents, got " + std::to_string(pads.size()));
  const bool ceil = n.attr_int("ceil_mode", 0) != 0;
  const int64_t oh = window_output(x.shape[2], k[0], strides[0], 1, pads[0], pads[2], ceil);
  const int64_t ow = window_output(x.shape[3], k[1], strides[1], 1, pads[1], pads[3], ceil);
  if (oh <= 0 || ow <= 0) fail(n, "the window is larger than the padded input " + shape_str(x.shape));
  return {x.shape[0], x.shape[1], oh, ow};
}

Shape reshape_shape(const Graph& g, const Node& n) {
  const Value& x = in(g, n, 0);
  const Tensor* spec = g.input_present(n, 1) ? g.constant(n.inputs[1]) : nullptr;
  if (!spec) fail(n, "the target shape (input 1) must be a constant: tunefarm plans static shapes");
  if (spec->dtype != DType::Int64) fail(n, "the target shape must be int64");
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  Shape out;
  int infer_at = -1;
  int64_t known = 1;
  for (int64_t i = 0; i < spec->size(); ++i) {
    int64_t d = spec->i64[i];
    if (d == 0 && !allowzero) {
      if (i >= static_cast<int64_t>(x.shape.size())) fail(n, "target extent 0 at " + std::to_string(i) + " has no input extent to copy");
      d = x.shape[i];
    }
    if (d == -1) {
      if (infer_at >= 0) fail(n, "the target shape has two -1 extents");
      infer_at = static_cast<int>(i);
    } else if (d < 0) {
      fail(n, "target extent " + std::to_string(d) + " is negative");
    } else if (__builtin_mul_overflow(known, d, &known)) {
      // No input holds that many elements: the product alone says the shapes cannot match.
      fail(n, "target extents of " + shape_str(spec->i64) + " multiply beyond any tensor of " + shape_str(x.shape));
    }
    out.push_back(d);
  }
  const int64_t total = element_count(x.shape);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) fail(n, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(out));
    out[infer_at] = total / known;
  }
  if (element_count(out) != total) fail(n, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(out));
  return out;
}

Shape transpose_shape(const Graph& g, const Node& n) {
  const Value& x = in(g, n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> perm = n.attr_ints("perm", {});
  if (perm.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank) fail(n, "attribute 'perm' has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::set<int64_t> seen;
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || !seen.insert(p).second) fail(n, "attribute 'perm' is not a permutation of 0.." + std::to_string(rank - 1));
    out.push_back(x.shape[p]);
  }
  return out;
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

Shape reduce_shape(const Graph& g, const Node& n) {
  const Shape& x = in(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  std::set<int64_t> axes;
  for (int64_t a : n.attr_ints("axes", {})) axes.insert(normalize_axis(a, rank, n, "axes"));
  if (axes.empty()) {
    for (int64_t a = 0; a < rank; ++a) axes.insert(a);
  }
  const bool keep = n.attr_int("keepdims", 1) != 0;
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!axes.count(d)) out.push_back(x[d]);
    else if (keep) out.push_back(1);
  }
  return out;
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

Shape unsqueeze_shape(const Graph& g, const Node& n) {
  Shape out = in(g, n, 0).shape;
  const auto axes_attr = n.attr_ints("axes", {});
  const int64_t rank = static_cast<int64_t>(out.size() + axes_attr.size());
  std::set<int64_t> axes;
  for (int64_t a : axes_attr) axes.insert(normalize_axis(a, rank, n, "axes"));
  for (int64_t a : axes) out.insert(out.begin() + a, 1);
  return out;
}

Shape squeeze_shape(const Graph& g, const Node& n) {
  const Shape& x = in(g, n, 0).shape;
  std::set<int64_t> axes;
  for (int64_t a : n.attr_ints("axes", {})) axes.insert(normalize_axis(a, static_cast<int64_t>(x.size()), n, "axes"));
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(x.size()); ++d) {
    const bool drop = axes.empty() ? x[d] == 1 : axes.count(d) != 0;
    if (drop && x[d] != 1) fail(n, "axis " + std::to_string(d) + " of " + shape_str(x) + " is not 1");
    if (!drop) out.push_back(x[d]);
  }
  return out;
}

Shape flatten_shape(const Graph& g, const Node& n) {
  const Shape& x = in(g, n, 0).shape;
  // Flatten's axis is in [-rank, rank]: a negative one counts from the rank, not from rank + 1.
  const int64_t rank = static_cast<int64_t>(x.size()), raw = n.attr_int("axis", 1);
  const int64_t axis = normalize_axis(raw < 0 ? raw + rank : raw, rank + 1, n, "axis");
  return {element_count(Shape(x.begin(), x.begin() + axis)), element_count(Shape(x.begin() + axis, x.end()))};
}

Shape shape_of_shape(const Graph& g, const Node& n) {
  const int64_t rank = static_cast<int64_t>(in(g, n, 0).shape.size());
  auto clamp = [&](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank); };
  const int64_t start = clamp(n.attr_int("start", 0)), end = clamp(n.attr_int("end", rank));
  return {std::max<int64_t>(0, end - start)};
}

bool is_elementwise_binary(const std::string& op) { return op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow"; }

}  // namespace

int64_t window_output(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end, bool ceil_mode) {
  if (stride <= 0) return -1;
  const int64_t span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const Node& n) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1) fail(n, "shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const Node& n, const std::string& attr) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1)) {
    fail(n, "attribute '" + attr + "' = " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return a;
}

void infer_node_shapes(Graph& g, const Node& n) {
  const std::string& op = n.op;
  auto same_as_input = [&] { set_out(g, n, 0, in(g, n, 0).dtype, in(g, n, 0).shape); };
  if (op == "Clip") {
    // Its bounds are scalars (ONNX); a bound of more elements would be read past its end.
    for (size_t i = 1; i <= 2; ++i) {
      if (g.input_present(n, i) && element_count(in(g, n, i).shape) != 1) {
        fail(n, "input " + std::to_string(i) + (i == 1 ? " (min)" : " (max)") + " must be a scalar, got " + shape_str(in(g, n, i).shape));
      }
    }
  }
  if (is_elementwise_binary(op)) {
    set_out(g, n, 0, in(g, n, 0).dtype, broadcast_shapes(in(g, n, 0).shape, in(g, n, 1).shape, n));
  } else if (op == "Relu" || op == "Sigmoid" || op == "Erf" || op == "Tanh" || op == "Sqrt" || op == "Identity" || op == "Clip" ||
             op == "Softmax" || op == "BatchNormalization" || op == "LayerNormalization") {
    same_as_input();
  } else if (op == "Cast") {
    set_out(g, n, 0, n.attr_string("to", "float32") == "int64" ? DType::Int64 : DType::Float32, in(g, n, 0).shape);
  } else if (op == "Conv") {
    set_out(g, n, 0, DType::Float32, conv_shape(g, n));
  } else if (op == "Gemm") {
    set_out(g, n, 0, DType::Float32, gemm_shape(g, n));
  } else if (op == "MatMul") {
    set_out(g, n, 0, DType::Float32, matmul_shape(g, n));
  } else if (op == "MaxPool" || op == "AveragePool") {
    set_out(g, n, 0, DType::Float32, pool_shape(g, n));
  } else if (op == "GlobalAveragePool") {
    const Value& x = in(g, n, 0);
    require_rank(n, x, 4, "input");
    set_out(g, n, 0, DType::Float32, {x.shape[0], x.shape[1], 1, 1});
  } else if (op == "Flatten") {
    set_out(g, n, 0, in(g, n, 0).dtype, flatten_shape(g, n));
  } else if (op == "Reshape") {
    set_out(g, n, 0, in(g, n, 0).dtype, reshape_shape(g, n));
  } else if (op == "Transpose") {
    set_out(g, n, 0, in(g, n, 0).dtype, transpose_shape(g, n));
  } else if (op == "Concat") {
    set_out(g, n, 0, in(g, n, 0).dtype, concat_shape(g, n));
  } else if (op == "ReduceMean") {
    set_out(g, n, 0, in(g, n, 0).dtype, reduce_shape(g, n));
  } else if (op == "Shape") {
    set_out(g, n, 0, DType::Int64, shape_of_shape(g, n));
  } else if (op == "Gather") {
    set_out(g, n, 0, in(g, n, 0).dtype, gather_shape(g, n));
  } else if (op == "Unsqueeze") {
    set_out(g, n, 0, in(g, n, 0).dtype, unsqueeze_shape(g, n));
  } else if (op == "Squeeze") {
    set_out(g, n, 0, in(g, n, 0).dtype, squeeze_shape(g, n));
  } else {
    // Fused kernels write the shape of the output they replace; nothing to infer.
    for (const auto& out : n.outputs) {
      if (!g.has_value(out)) fail(n, "no shape rule for op " + op);
    }
  }
}

void infer_shapes(Graph& g) {
  for (const Node& n : g.nodes) infer_node_shapes(g, n);
}

}  // namespace tf::graph

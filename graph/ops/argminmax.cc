// ArgMax and ArgMin: the index of the extreme along one axis, as int64. The kernel (compiler/ops
// argmax / argmin over [rows, cols, inner]) writes float32 indices, exact below 2^24; the
// normalization puts a Cast to int64 after it, so the node's users see ONNX's type.
#include <cmath>

#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;

struct Axis {
  int64_t rows = 1, cols = 1, inner = 1;
};

Axis split_at(const Shape& x, int64_t axis) {
  Axis a;
  for (int64_t d = 0; d < static_cast<int64_t>(x.size()); ++d) {
    if (d < axis)
      a.rows *= x[d];
    else if (d == axis)
      a.cols = x[d];
    else
      a.inner *= x[d];
  }
  return a;
}

std::vector<Node> normalize(Graph& g, Node n, const OpVersion&) {
  const Shape& x = rules::in(g, n, 0).shape;
  if (x.empty()) fail(n, "input is a scalar; " + n.op + " needs an axis");
  n.attrs["axis"] = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(x.size()), n, "axis");
  n.attrs["keepdims"] = int64_t{n.attr_int("keepdims", 1) != 0};
  n.attrs["select_last_index"] = int64_t{n.attr_int("select_last_index", 0) != 0};
  const std::string out = n.outputs.at(0);
  Node cast = rules::helper_node(g, "Cast", {}, out + "_int64");
  n.outputs = {cast.outputs[0]};  // float32 indices
  cast.inputs = {n.outputs[0]};
  cast.outputs = {out};
  cast.attrs["to"] = std::string("int64");
  return {std::move(n), std::move(cast)};
}

void infer(Graph& g, const Node& n) {
  const Shape& x = rules::in(g, n, 0).shape;
  const int64_t axis = n.attr_int("axis", 0);
  Shape out = x;
  if (n.attr_int("keepdims", 1) != 0)
    out[axis] = 1;
  else
    out.erase(out.begin() + axis);
  rules::set_out(g, n, 0, DType::Float32, out);
}

Tensor fold(const Node& n, const Tensor& x, const Shape& out_shape, bool max) {
  const Axis a = split_at(x.shape, n.attr_int("axis", 0));
  if (a.cols == 0) fail(n, "the axis has no elements to pick an index from");
  const bool last = n.attr_int("select_last_index", 0) != 0;
  std::vector<float> idx(static_cast<size_t>(a.rows * a.inner));
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t i = 0; i < a.inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < a.cols; ++k) {
        const double v = x.at((r * a.cols + k) * a.inner + i), b = x.at((r * a.cols + best) * a.inner + i);
        if (max ? (v > b || (last && v == b)) : (v < b || (last && v == b))) best = k;
      }
      idx[static_cast<size_t>(r * a.inner + i)] = static_cast<float>(best);
    }
  }
  return Tensor::floats(out_shape, std::move(idx));
}

OpDef arg_op(const std::string& name, const std::string& kernel, bool max) {
  OpDef d;
  d.name = name;
  d.versions = {1, 11, 12, 13};
  d.attributes = {"axis", "keepdims", "select_last_index"};
  d.normalize = normalize;
  d.infer = infer;
  d.fold = [max](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return fold(n, *inputs.at(0), g.value(n.outputs.at(0)).shape, max);
  };
  d.lower = [kernel](const Graph& g, const Node& n) {
    const Value& x = g.input_of(n, 0);
    if (x.dtype != DType::Float32)
      fail(n, "input is " + std::string(dtype_name(x.dtype)) + "; the " + kernel + " kernel takes float32");
    const Axis a = split_at(x.shape, n.attr_int("axis", 0));
    return lowering::call(lowering::named_call(
        n, kernel,
        {{"rows", a.rows}, {"cols", a.cols}, {"inner", a.inner}, {"last", n.attr_int("select_last_index", 0)}},
        lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

}  // namespace

void add_arg_extreme_ops(std::vector<OpDef>& ops) {
  ops.push_back(arg_op("ArgMax", "argmax", true));
  ops.push_back(arg_op("ArgMin", "argmin", false));
}

}  // namespace tf::graph

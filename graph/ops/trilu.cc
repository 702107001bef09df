// Ops that keep or set the elements on one side of a diagonal of the last two axes: Trilu and
// EyeLike. Element (i, j) lies on diagonal j - i; diagonal k is the main one shifted k columns
// right. Shapes are static, so Trilu's mask is a constant built here and the op becomes
// Where(mask, x, 0), one elementwise kernel broadcasting the mask over the batch axes. EyeLike
// reads only its input's shape and folds to a constant.
#include <optional>

#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/strided.h"

namespace tf::graph {
namespace {

using rules::fail;

// ONNX's TensorProto codes of the types these ops produce here.
std::optional<DType> produced(int64_t onnx_type) {
  switch (onnx_type) {
    case 1: return DType::Float32;
    case 6: return DType::Int32;
    case 7: return DType::Int64;
    case 9: return DType::Bool;
    case 11: return DType::Float64;
    default: return std::nullopt;
  }
}

// Trilu's k: input 1 when present (a scalar, constant since shapes are static), else 0.
int64_t diagonal_of(const Graph& g, const Node& n) {
  if (!g.input_present(n, 1)) return 0;
  const std::vector<int64_t> k = rules::constant_ints(g, n, 1, "k");
  if (k.size() != 1) fail(n, "input 1 (k) holds " + std::to_string(k.size()) + " values; it is a scalar");
  return k[0];
}

std::vector<Node> normalize_trilu(Graph& g, Node n) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() < 2) fail(n, "input '" + x.name + "' " + shape_str(x.shape) + " has rank below 2");
  strided::refuse_empty_output(n, x.shape);
  const int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
  const int64_t k = diagonal_of(g, n);
  const bool upper = n.attr_int("upper", 1) != 0;
  std::vector<int64_t> keep;
  bool everything = true;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      keep.push_back(upper ? j - i >= k : j - i <= k);
      everything = everything && keep.back();
    }
  }
  const std::string out = n.outputs.at(0);
  if (everything) {
    Node id = rules::helper_node(g, "Identity", {n.inputs[0]}, n.name + "_kept");
    id.outputs = {out};
    return {std::move(id)};
  }
  const std::string mask =
      rules::add_constant(g, n.name + "_mask", Tensor::ints({rows, cols}, std::move(keep), DType::Bool));
  Tensor zero = x.dtype == DType::Float32   ? Tensor::floats({}, {0.0f})
                : x.dtype == DType::Float64 ? Tensor::doubles({}, {0.0})
                                            : Tensor::ints({}, {0}, x.dtype);
  Node w = rules::helper_node(
      g, "Where", {mask, n.inputs[0], rules::add_constant(g, n.name + "_zero", std::move(zero))}, n.name + "_masked");
  w.outputs = {out};
  return {std::move(w)};
}

OpDef trilu() {
  OpDef d;
  d.name = "Trilu";
  d.versions = {14};
  d.attributes = {"upper"};
  d.normalize = [](Graph& g, Node n, const OpVersion&) { return normalize_trilu(g, std::move(n)); };
  return d;
}

DType eye_dtype(const Graph& g, const Node& n) {
  if (!n.has("dtype")) return rules::in(g, n, 0).dtype;
  return *produced(n.attr_int("dtype", 1));
}

OpDef eye_like() {
  OpDef d;
  d.name = "EyeLike";
  d.versions = {9};
  d.attributes = {"dtype", "k"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (n.has("dtype") && !produced(n.attr_int("dtype", 1)))
      return "attribute 'dtype' = " + onnx_dtype_name(n.attr_int("dtype", 1)) +
             " is not supported (float32, float64, int64, int32, bool)";
    return std::nullopt;
  };
  d.infer = [](Graph& g, const Node& n) {
    const Shape& x = rules::in(g, n, 0).shape;
    if (x.size() != 2) fail(n, "input '" + n.inputs[0] + "' " + shape_str(x) + " is not 2-D");
    rules::set_out(g, n, 0, eye_dtype(g, n), x);
  };
  d.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>&) {
    const Value& out = g.value(n.outputs.at(0));
    const int64_t k = n.attr_int("k", 0);
    std::vector<int64_t> ones;
    for (int64_t i = 0; i < out.shape[0]; ++i) {
      for (int64_t j = 0; j < out.shape[1]; ++j) ones.push_back(j - i == k);
    }
    if (out.dtype == DType::Float64) return Tensor::doubles(out.shape, std::vector<double>(ones.begin(), ones.end()));
    if (out.dtype != DType::Float32) return Tensor::ints(out.shape, std::move(ones), out.dtype);
    return Tensor::floats(out.shape, std::vector<float>(ones.begin(), ones.end()));
  };
  // No kernel: it always folds, a graph output too (its ones and zeros are exact).
  d.fold_reads_shapes_only = true;
  return d;
}

}  // namespace

void add_trilu_ops(std::vector<OpDef>& ops) {
  ops.push_back(trilu());
  ops.push_back(eye_like());
}

}  // namespace tf::graph

#include "graph/constant_eval.h"

#include "compiler/error.h"
#include "graph/ops/registry.h"

namespace tf::graph {
namespace {

[[noreturn]] void fail(const Node& n, const std::string& why) { throw CompileError(n.describe() + ": " + why); }

const OpDef* foldable(const std::string& op) {
  const OpDef* def = find_op_def(op);
  return def && def->fold ? def : nullptr;
}

}  // namespace

bool is_elementwise(const std::string& op) { return fusion_role(op).elementwise; }

bool is_constant_foldable(const std::string& op) { return foldable(op) != nullptr; }

Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  const size_t rank = x.shape.size();
  Shape out_shape(rank);
  for (size_t i = 0; i < rank; ++i) out_shape[i] = x.shape[perm[i]];
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * x.shape[i];
  Shape permuted_strides(rank);
  for (size_t i = 0; i < rank; ++i) permuted_strides[i] = in_strides[perm[i]];
  Tensor t;
  t.dtype = x.dtype;
  t.shape = out_shape;
  const int64_t total = element_count(out_shape);
  t.resize_elements(total);
  std::vector<int64_t> idx(rank, 0);
  int64_t from = 0;
  for (int64_t e = 0; e < total; ++e) {
    t.set(e, x, from);
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      from += permuted_strides[d];
      if (idx[d] < out_shape[d]) break;
      from -= permuted_strides[d] * out_shape[d];
      idx[d] = 0;
    }
  }
  return t;
}

std::vector<Tensor> evaluate_constant_node(const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
  const OpDef* def = foldable(n.op);
  if (!def) fail(n, "cannot be evaluated at planning time");
  if (n.outputs.size() != 1) fail(n, "a folded node has one output");
  if (!def->fold_reads_shapes_only) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i] && g.input_present(n, i)) fail(n, "input " + std::to_string(i) + " is not a constant");
    }
    if (inputs.empty() || !inputs[0]) fail(n, "input 0 is missing");
  }
  return {def->fold(g, n, inputs)};
}

bool dequantizes_int8_weight(const Graph& g, const Node& n) {
  if (n.op != "DequantizeLinear" || n.inputs.empty()) return false;
  const Tensor* q = g.constant(n.inputs[0]);
  return q && q->dtype == DType::Int8;
}

bool fold_if_constant(Graph& g, const Node& n) {
  constexpr int64_t kMaxElements = int64_t{1} << 31;
  const OpDef* def = foldable(n.op);
  // A graph output folds only where no kernel could compute it (Shape, Size, Range...): a fold
  // computes in double what a kernel computes in float32, and ONNX's expected outputs are float32's.
  if (!def || n.outputs.size() != 1 || (g.is_output(n.outputs[0]) && def->lower)) return false;
  std::vector<const Tensor*> inputs;
  for (const auto& name : n.inputs) {
    const Tensor* t = name.empty() ? nullptr : g.constant(name);
    if (!t && !name.empty() && !def->fold_reads_shapes_only) return false;
    inputs.push_back(t);
  }
  const Value& out = g.value(n.outputs[0]);
  if (element_count(out.shape) > kMaxElements) return false;
  auto results = evaluate_constant_node(g, n, inputs);
  Value folded{out.name, results[0].dtype, results[0].shape, nullptr};
  folded.data = std::make_shared<const Tensor>(std::move(results[0]));
  g.set_value(std::move(folded));
  return true;
}

}  // namespace tf::graph

// MatMul, Gemm, and the dense kernels fuse_epilogues makes of them. Gemm's canonical form is
// Gemm(A, B[, C]) with transB and nothing else: transA becomes a Transpose node, alpha and beta
// scale constant operands (or become a Mul), and a Gemm whose B or C is computed becomes
// MatMul (+ Add C), which the dense and elementwise kernels run as they are.
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"
#include "graph/tasks.h"

namespace tf::graph {
namespace {

using rules::fail;
using rules::in;

Shape matmul_shape(const Graph& g, const Node& n) {
  const Value& a = in(g, n, 0);
  const Value& b = in(g, n, 1);
  if (a.shape.size() < 2 || b.shape.size() < 2)
    fail(n, "operands of rank 1 are not supported (A " + shape_str(a.shape) + ", B " + shape_str(b.shape) + ")");
  const int64_t k = a.shape.back();
  if (b.shape[b.shape.size() - 2] != k)
    fail(n, "inner extents differ: A " + shape_str(a.shape) + ", B " + shape_str(b.shape));
  Shape batch_a(a.shape.begin(), a.shape.end() - 2), batch_b(b.shape.begin(), b.shape.end() - 2);
  Shape out = broadcast_shapes(batch_a, batch_b, n);
  out.push_back(a.shape[a.shape.size() - 2]);
  out.push_back(b.shape.back());
  return out;
}

Shape gemm_shape(const Graph& g, const Node& n) {
  const Value& a = in(g, n, 0);
  const Value& b = in(g, n, 1);
  rules::require_rank(n, a, 2, "A");
  rules::require_rank(n, b, 2, "B");
  const bool ta = n.attr_int("transA", 0), tb = n.attr_int("transB", 0);
  const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const int64_t kb = tb ? b.shape[1] : b.shape[0], nn = tb ? b.shape[0] : b.shape[1];
  if (k != kb)
    fail(n, "inner extents differ: A " + shape_str(a.shape) + ", B " + shape_str(b.shape) + " (transA " +
                std::to_string(ta) + ", transB " + std::to_string(tb) + ")");
  if (g.input_present(n, 2)) broadcast_shapes(in(g, n, 2).shape, {m, nn}, n);
  return {m, nn};
}

// The operand scaled by `factor`: a new constant when it is one, else a Mul node (appended).
std::string scaled(Graph& g, const Node& n, const std::string& value, double factor, std::vector<Node>& nodes) {
  if (factor == 1.0) return value;
  if (const Tensor* t = g.constant(value); t && t->dtype == DType::Float32) {
    Tensor s = *t;
    for (float& x : s.f32) x = static_cast<float>(x * factor);
    return rules::add_constant(g, value + "_scaled", std::move(s));
  }
  const std::string f = rules::add_constant(g, n.name + "_factor", Tensor::floats({}, {static_cast<float>(factor)}));
  nodes.push_back(rules::helper_node(g, "Mul", {value, f}, value + "_scaled"));
  return nodes.back().outputs[0];
}

Node transposed(Graph& g, const std::string& value) {
  Node t = rules::helper_node(g, "Transpose", {value}, value + "_t");
  t.attrs["perm"] = std::vector<int64_t>{1, 0};
  return t;
}

// Before 7, C broadcasts only with broadcast=1 (as 7 broadcasts it always); without, it is [M, N].
void drop_old_broadcast(const Graph& g, Node& n, const OpVersion& v) {
  const bool broadcast = n.attr_int("broadcast", 0) != 0;
  n.attrs.erase("broadcast");
  if (v.since >= 7 || broadcast || !g.input_present(n, 2)) return;
  const Shape y = gemm_shape(g, n), c = in(g, n, 2).shape;
  if (c != y)
    fail(n, "input C " + shape_str(c) + " is not " + shape_str(y) + " and attribute 'broadcast' is 0 (Gemm version " +
                std::to_string(v.since) + ")");
}

std::vector<Node> normalize_gemm(Graph& g, Node n, const OpVersion& v) {
  drop_old_broadcast(g, n, v);
  std::vector<Node> nodes;
  if (!g.input_present(n, 0) || !g.input_present(n, 1)) fail(n, "inputs A and B are required");
  std::string a = n.inputs[0];
  if (n.attr_int("transA", 0) != 0) {
    nodes.push_back(transposed(g, a));
    a = nodes.back().outputs[0];
  }
  const double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
  std::string b = n.inputs[1];
  if (alpha != 1.0) {
    if (g.constant(b))
      b = scaled(g, n, b, alpha, nodes);
    else
      a = scaled(g, n, a, alpha, nodes);
  }
  std::string c = g.input_present(n, 2) ? scaled(g, n, n.inputs[2], beta, nodes) : "";
  const bool trans_b = n.attr_int("transB", 0) != 0;
  n.attrs.clear();
  if (g.constant(b) && (c.empty() || g.constant(c))) {
    if (trans_b) n.attrs["transB"] = int64_t{1};
    n.inputs = c.empty() ? std::vector<std::string>{a, b} : std::vector<std::string>{a, b, c};
    nodes.push_back(std::move(n));
    return nodes;
  }
  // A computed B or C: MatMul (+ Add C), which fuse_epilogues runs as dense / batch_matmul.
  if (trans_b) {
    nodes.push_back(transposed(g, b));
    b = nodes.back().outputs[0];
  }
  Node mm = n;
  mm.op = "MatMul";
  mm.inputs = {a, b};
  if (c.empty()) {
    nodes.push_back(std::move(mm));
    return nodes;
  }
  mm.outputs = {g.unique_name(n.outputs[0] + "_ab")};
  g.set_value(Value{mm.outputs[0], DType::Float32, {}, nullptr});
  Node add = n;
  add.name = g.unique_name(n.name + "_c");
  add.op = "Add";
  add.inputs = {mm.outputs[0], c};
  nodes.push_back(std::move(mm));
  nodes.push_back(std::move(add));
  return nodes;
}

// A dense kernel: the workload node_kernel() gives; a dense of two computed operands with a batch
// (attention) runs as one batch_matmul.
NodeLowering lower_dense(const Graph& g, const Node& n) {
  const NodeKernel k = *node_kernel(g, n);
  if (k.calls == 1)
    return lowering::call(
        lowering::make_call(n, lowering::registry_op(n.op), k.workload.shape, lowering::with_output(n.inputs, n)));
  if (n.op != "dense") fail(n, "a batched product with an epilogue has no kernel");
  const Shape& a = g.input_of(n, 0).shape;
  const Shape& b = g.input_of(n, 1).shape;
  if (lowering::leading_product(a, 2) != lowering::leading_product(b, 2))
    fail(n, "broadcasting batch extents of " + shape_str(a) + " and " + shape_str(b) + " is not supported");
  return lowering::call(lowering::named_call(
      n, "batch_matmul",
      {{"B", k.calls}, {"M", k.workload.shape[0]}, {"N", k.workload.shape[1]}, {"K", k.workload.shape[2]}},
      lowering::with_output(n.inputs, n)));
}

}  // namespace

void add_matmul_ops(std::vector<OpDef>& ops) {
  OpDef mm;
  mm.name = "MatMul";
  mm.versions = {1, 9, 13};
  mm.infer = [](Graph& g, const Node& n) {
    rules::require_float32(g, n, "MatMul");
    rules::set_out(g, n, 0, DType::Float32, matmul_shape(g, n));
  };
  mm.fusion.anchor = Anchor::Dense;
  ops.push_back(mm);

  OpDef gemm;
  gemm.name = "Gemm";
  gemm.versions = {1, 6, 7, 9, 11, 13};
  gemm.attributes = {"alpha", "beta", "transA", "transB"};
  gemm.normalize = normalize_gemm;
  rules::old_attributes(gemm, {"broadcast"}, 7);
  gemm.infer = [](Graph& g, const Node& n) {
    rules::require_float32(g, n, "Gemm");
    rules::set_out(g, n, 0, DType::Float32, gemm_shape(g, n));
  };
  gemm.fusion.anchor = Anchor::Dense;
  ops.push_back(gemm);

  for (const char* name :
       {"dense", "dense_bias", "dense_bias_relu", "dense_bias_gelu", "dense_bias_gelu_tanh", "dense_bias_add"}) {
    OpDef d;
    d.name = name;
    d.lower = lower_dense;
    ops.push_back(d);
  }
}

}  // namespace tf::graph

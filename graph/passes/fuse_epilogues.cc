#include <algorithm>
#include <set>

#include "graph/constant_eval.h"
#include "graph/ops/registry.h"
#include "graph/passes/passes.h"
#include "graph/passes/pattern.h"

namespace tf::graph::passes {
namespace {

bool absorbs_as(const Graph& g, int node, Epilogue e) {
  return node >= 0 && fusion_role(g.nodes[node].op).epilogue == e;
}

// The other operand of a binary node reading `value`.
const std::string& other_operand(const Node& n, const std::string& value) {
  return n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
}

// A constant [N] (or [1,..,1,N]) bias for a dense output of width n, as a [N] value; "" if not one.
std::string dense_bias(Graph& g, const std::string& name, int64_t n, const std::string& stem) {
  const Tensor* t = g.constant(name);
  if (!t || t->dtype != DType::Float32 || t->size() != n || t->shape.empty() || t->shape.back() != n) return "";
  if (t->shape.size() == 1) return name;
  Tensor flat = *t;
  flat.shape = {n};
  std::string flat_name = g.unique_name(stem + ".bias");
  g.set_constant(flat_name, std::move(flat));
  return flat_name;
}

// A constant per-channel bias of a conv output [N, K, ...] (shape [K, 1, ..] or [1, K, 1, ..]) as a
// [K] value; "" if not one.
std::string channel_bias(Graph& g, const std::string& name, const Shape& out, const std::string& stem) {
  const Tensor* t = g.constant(name);
  const int64_t k = out.at(1);
  if (!t || t->dtype != DType::Float32 || t->size() != k || t->shape.size() > out.size() ||
      t->shape.size() < out.size() - 1)
    return "";
  const size_t channel_axis = t->shape.size() - (out.size() - 1);  // broadcasting aligns the trailing axes
  if (t->shape[channel_axis] != k) return "";
  Tensor flat = *t;
  flat.shape = {k};
  std::string flat_name = g.unique_name(stem + ".bias");
  g.set_constant(flat_name, std::move(flat));
  return flat_name;
}

struct Fusion {
  std::string op;
  std::vector<std::string> inputs;
  std::vector<size_t> absorbed;  // consumer nodes that disappear into the producer
  std::vector<std::string> outputs;
};

Fusion conv_fusion(Graph& g, const Node& conv, const std::set<size_t>& taken) {
  // A 3-D conv (rank-5 input) has the conv3d kernels: bias, bias + ReLU.
  const bool volume = g.input_of(conv, 0).shape.size() == 5;
  const std::string kernel = volume ? "conv3d" : "conv2d";
  Fusion f{kernel, {conv.inputs[0], conv.inputs[1]}, {}, conv.outputs};
  std::string bias = g.input_present(conv, 2) ? conv.inputs[2] : "";
  if (!bias.empty() && !g.constant(bias)) return Fusion{};
  auto ensure_bias = [&] {
    if (bias.empty()) {
      const int64_t k = g.input_of(conv, 1).shape[0];
      bias = g.unique_name(conv.name + ".zero_bias");
      g.set_constant(bias, Tensor::floats({k}, std::vector<float>(k, 0.0f)));
    }
    f.inputs.push_back(bias);
  };
  std::string out = conv.outputs[0];
  int next = sole_reader(g, out, taken);
  // A bias an exporter wrote as its own Add of a per-channel constant.
  if (bias.empty() && absorbs_as(g, next, Epilogue::Add) && g.nodes[next].inputs.size() == 2) {
    const Node& add = g.nodes[next];
    const std::string per_channel = channel_bias(g, other_operand(add, out), g.value(out).shape, conv.name);
    if (!per_channel.empty() && g.value(add.outputs[0]).shape == g.value(out).shape) {
      bias = per_channel;
      f.absorbed.push_back(static_cast<size_t>(next));
      out = add.outputs[0];
      f.outputs = add.outputs;
      next = sole_reader(g, out, taken);
    }
  }
  auto fused = [&](const std::string& op, std::vector<size_t> more, const std::vector<std::string>& outputs) {
    std::vector<size_t> absorbed = f.absorbed;
    absorbed.insert(absorbed.end(), more.begin(), more.end());
    return Fusion{op, f.inputs, absorbed, outputs};
  };
  const Node* n = next >= 0 ? &g.nodes[next] : nullptr;
  if (absorbs_as(g, next, Epilogue::Relu)) {
    ensure_bias();
    return fused(kernel + "_bias_relu", {size_t(next)}, n->outputs);
  }
  if (!volume && absorbs_as(g, next, Epilogue::Clip) &&
      g.scalar_constant(n->inputs.size() > 1 ? n->inputs[1] : "") == 0.0 &&
      g.scalar_constant(n->inputs.size() > 2 ? n->inputs[2] : "") == 6.0) {
    ensure_bias();
    return fused("conv2d_bias_clip", {size_t(next)}, n->outputs);
  }
  if (!volume && absorbs_as(g, next, Epilogue::Add) && n->inputs.size() == 2 && n->inputs[0] != n->inputs[1]) {
    const std::string residual = other_operand(*n, out);
    if (!g.constant(residual) && g.value(residual).shape == g.value(out).shape) {
      ensure_bias();
      f.inputs.push_back(residual);
      const int relu = sole_reader(g, n->outputs[0], taken);
      if (absorbs_as(g, relu, Epilogue::Relu))
        return fused("conv2d_bias_add_relu", {size_t(next), size_t(relu)}, g.nodes[relu].outputs);
      return fused("conv2d_bias_add", {size_t(next)}, n->outputs);  // a linear bottleneck's residual (MobileNetV2)
    }
  }
  if (!bias.empty()) {
    f.op = kernel + "_bias";
    f.inputs.push_back(bias);
  }
  return f;
}

// A dense weight [K, N] from a MatMul's or Gemm's constant B; "" when B is computed.
std::string dense_weight(Graph& g, const Node& n) {
  const Tensor* b = g.constant(n.inputs[1]);
  if (!b || b->dtype != DType::Float32 || b->shape.size() != 2) return "";
  if (n.attr_int("transB", 0) == 0) return n.inputs[1];
  std::string name = g.unique_name(n.inputs[1] + ".kn");
  Tensor t = transpose(*b, {1, 0});
  g.set_constant(name, std::move(t));
  return name;
}

Fusion dense_fusion(Graph& g, const Node& mm, const std::set<size_t>& taken) {
  const std::string weight = dense_weight(g, mm);
  if (weight.empty()) return Fusion{};
  const int64_t width = g.value(weight).shape[1];
  Fusion f{"dense", {mm.inputs[0], weight}, {}, mm.outputs};
  std::string bias;
  if (g.input_present(mm, 2)) {
    bias = dense_bias(g, mm.inputs[2], width, mm.name);
    if (bias.empty()) return Fusion{};  // a C the dense kernels cannot add
  }
  int next = sole_reader(g, f.outputs[0], taken);
  if (bias.empty() && absorbs_as(g, next, Epilogue::Add) && g.nodes[next].inputs.size() == 2) {
    const Node& add = g.nodes[next];
    bias = dense_bias(g, other_operand(add, f.outputs[0]), width, mm.name);
    if (!bias.empty() && g.value(add.outputs[0]).shape == g.value(f.outputs[0]).shape) {
      f.absorbed.push_back(next);
      f.outputs = add.outputs;
      next = sole_reader(g, f.outputs[0], taken);
    } else {
      bias.clear();
    }
  }
  if (bias.empty()) return f;
  f.inputs.push_back(bias);
  f.op = "dense_bias";
  if (absorbs_as(g, next, Epilogue::Relu)) {
    f.op = "dense_bias_relu";
    f.absorbed.push_back(next);
    f.outputs = g.nodes[next].outputs;
  } else if (absorbs_as(g, next, Epilogue::Add) && g.nodes[next].inputs.size() == 2 &&
             g.nodes[next].inputs[0] != g.nodes[next].inputs[1]) {
    // A residual of the output's shape (a transformer's skip connection) is read in the epilogue.
    const Node& add = g.nodes[next];
    const std::string& residual = other_operand(add, f.outputs[0]);
    const Shape& shape = g.value(f.outputs[0]).shape;
    if (g.value(residual).dtype == DType::Float32 && g.value(residual).shape == shape &&
        g.value(add.outputs[0]).shape == shape) {
      f.op = "dense_bias_add";
      f.inputs.push_back(residual);
      f.absorbed.push_back(next);
      f.outputs = add.outputs;
    }
  }
  return f;
}

// Any other MatMul whose operands have the same leading (batch) extents: one dense per matrix.
Fusion batched_dense(const Graph& g, const Node& mm) {
  const Shape& a = g.input_of(mm, 0).shape;
  const Shape& b = g.input_of(mm, 1).shape;
  if (a.size() != b.size() || a.size() < 2 || !std::equal(a.begin(), a.end() - 2, b.begin())) return Fusion{};
  return Fusion{"dense", mm.inputs, {}, mm.outputs};
}

}  // namespace

Graph fuse_epilogues(const Graph& in) {
  Graph g = in;
  std::set<size_t> absorbed;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (absorbed.count(i)) continue;
    const Node& n = g.nodes[i];
    Fusion f;
    const Anchor anchor = fusion_role(n.op).anchor;
    if (anchor == Anchor::Conv)
      f = conv_fusion(g, n, absorbed);
    else if (anchor == Anchor::Dense)
      f = dense_fusion(g, n, absorbed);
    // A product of computed operands (no C, B as it is): one dense per matrix.
    if (f.op.empty() && anchor == Anchor::Dense && !g.input_present(n, 2) && n.attr_int("transB", 0) == 0)
      f = batched_dense(g, n);
    if (f.op.empty()) continue;
    Node& fused = g.nodes[i];
    if (f.op.rfind("dense", 0) == 0) fused.attrs.clear();
    if (f.op == "dense" && g.value(f.inputs[1]).shape.size() > 2) {
      const Shape& out = g.value(fused.outputs[0]).shape;
      fused.attrs = {{"batch", element_count(Shape(out.begin(), out.end() - 2))}};
    }
    fused.op = f.op;
    fused.inputs = f.inputs;
    fused.outputs = f.outputs;
    absorbed.insert(f.absorbed.begin(), f.absorbed.end());
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!absorbed.count(i)) kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
  // A residual may be computed after the conv that now reads it.
  g.sort_topologically();
  g.remove_unused_values();
  return g;
}

}  // namespace tf::graph::passes

// Blocked activations between convolutions (NCHWc, the layouts fast CPU libraries keep): every
// groups-1 and depthwise conv2d* becomes its conv2d_nchwc* / depthwise_nchwc* twin with the weight
// packed here, once, at build time; its output stays blocked under a new value name, and the
// original (plain) name is produced by a layout_from_nchwc only where something reads it plainly.
// A plain value a blocked conv reads is converted once by layout_to_nchwc.
#include <algorithm>
#include <map>
#include <set>

#include "compiler/error.h"

#include "compiler/ops/nchwc_shape.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/winograd.h"
#include "graph/kernel_alternatives.h"
#include "graph/kernel_calls.h"
#include "graph/passes/passes.h"
#include "graph/tasks.h"

namespace tf::graph::passes {
namespace {

constexpr int64_t kBlock = 16;  // one AVX-512 vector of floats

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// "conv2d_bias_relu" -> "_bias_relu"
std::string epilogue_of(const std::string& op) { return op.substr(std::string("conv2d").size()); }

// The blocked twin of a plain fused conv, or "" where none exists.
std::string blocked_op(const Node& n, const ops::Conv2dShape& s) {
  if (!starts_with(n.op, "conv2d")) return "";
  const bool depthwise = s.depthwise() && (s.k == s.c || s.k == 2 * s.c);  // the multipliers depthwise_nchwc takes
  const std::string twin = (s.groups == 1 ? "conv2d_nchwc" : depthwise ? "depthwise_nchwc" : "") + epilogue_of(n.op);
  if (twin == epilogue_of(n.op)) return "";
  return ops::has_operator(twin) ? twin : "";
}

std::vector<float> pack_depthwise_weight(const Tensor& w, int64_t k, int64_t taps, int64_t b) {
  const int64_t kb = ops::ceil_div(k, b);
  std::vector<float> out(static_cast<size_t>(kb * taps * b), 0.0f);
  for (int64_t o = 0; o < k; ++o) {
    for (int64_t t = 0; t < taps; ++t) out[static_cast<size_t>(((o / b) * taps + t) * b + o % b)] = w.f32[static_cast<size_t>(o * taps + t)];
  }
  return out;
}

std::vector<float> pad_bias(const Tensor& bias, int64_t k, int64_t b) {
  std::vector<float> out(static_cast<size_t>(ops::ceil_div(k, b) * b), 0.0f);
  std::copy(bias.f32.begin(), bias.f32.begin() + k, out.begin());
  return out;
}

class LayoutPlanner {
 public:
  LayoutPlanner(const Graph& in, const PlanOptions& options) : in_(in), options_(options), out_(in) { out_.nodes.clear(); }

  Graph run() {
    for (const Node& n : in_.nodes) {
      const ops::Conv2dShape s = starts_with(n.op, "conv2d") ? conv2d_shape(in_, n) : ops::Conv2dShape{};
      // Weights that are computed (an ONNX node test feeds them as inputs) cannot be packed ahead.
      const bool constant_weights = n.inputs.size() > 1 && in_.constant(n.inputs[1]) && (n.inputs.size() < 3 || in_.constant(n.inputs[2]));
      const std::string twin = constant_weights ? blocked_op(n, s) : "";
      if (twin.empty()) {
        if (block_pool(n)) continue;
        Node copy = n;
        for (auto& input : copy.inputs) input = plain(input);
        out_.nodes.push_back(std::move(copy));
      } else {
        block_conv(n, s, twin);
      }
    }
    for (const auto& o : out_.outputs) plain(o);
    out_.remove_unused_values();
    return out_;
  }

 private:
  // The value's plain (NCHW) name, converting a blocked value back once.
  std::string plain(const std::string& v) {
    if (v.empty() || !blocked_.count(v) || materialized_.count(v)) return v;
    const auto& [blocked_name, b] = blocked_.at(v);
    const Shape& shape = in_.value(v).shape;
    add_layout_node("layout_from_nchwc", blocked_name, v, {shape[0], shape[1], shape[2], shape[3], b});
    materialized_.insert(v);
    return v;
  }

  // The value blocked by b: the conv's own blocked output, or a layout_to_nchwc of the plain one.
  std::string blocked(const std::string& v, int64_t b) {
    if (auto it = blocked_.find(v); it != blocked_.end() && it->second.second == b) return it->second.first;
    const std::string key = v + "#" + std::to_string(b);
    if (auto it = converted_.find(key); it != converted_.end()) return it->second;
    const std::string p = plain(v);
    const Shape& shape = in_.value(v).shape;
    const std::string name = out_.unique_name(v + "_nchw" + std::to_string(b) + "c");
    const std::vector<int64_t> extents = {shape[0], shape[1], shape[2], shape[3], b};
    out_.set_value(Value{name, DType::Float32, ops::find_operator("layout_to_nchwc").output_shape(extents), nullptr});
    add_layout_node("layout_to_nchwc", p, name, extents);
    return converted_[key] = name;
  }

  void add_layout_node(const std::string& op, const std::string& from, const std::string& to, const std::vector<int64_t>& extents) {
    Node n;
    n.name = out_.unique_name(op + "_" + from);
    n.op = op;
    n.inputs = {from};
    n.outputs = {to};
    n.attrs["workload_shape"] = extents;
    out_.nodes.push_back(std::move(n));
  }

  std::string add_constant(const std::string& stem, Shape shape, std::vector<float> data) {
    const std::string name = out_.unique_name(stem);
    auto t = std::make_shared<Tensor>(Tensor::floats(shape, std::move(data)));
    out_.set_value(Value{name, DType::Float32, std::move(shape), std::move(t)});
    return name;
  }

  void block_conv(const Node& n, const ops::Conv2dShape& s, const std::string& twin) {
    const bool depthwise = starts_with(twin, "depthwise");
    const Tensor* weight = in_.constant(n.inputs.at(1));
    if (!weight) throw CompileError(n.describe() + ": the weight must be a constant to be packed for the blocked layout");
    std::vector<int64_t> extents;
    int64_t in_block, out_block;
    std::string packed, op = twin;
    if (depthwise) {
      ops::DepthwiseNchwcShape sh{s, kBlock};
      in_block = out_block = kBlock;
      extents = sh.to_vector();
      packed = add_constant(n.inputs[1] + "_packed", sh.weight_shape(), pack_depthwise_weight(*weight, s.k, s.r * s.s, kBlock));
    } else {
      // An input already blocked is read as it is (a ragged last block is the reduction's tail); a plain
      // one of 3 channels (a first layer) is blocked by 3, not padded to 16: five times the work otherwise.
      const auto producer = blocked_.find(n.inputs[0]);
      const int64_t ib = producer != blocked_.end() ? producer->second.second : std::min(s.c, kBlock);
      ops::Conv2dNchwcShape sh{s, ib, kBlock};
      in_block = sh.ib;
      out_block = sh.ob;
      // The direct kernel, or the alternative (Winograd) the database measured faster.
      const auto alternatives = kernel_alternatives({twin, sh.to_vector()});
      const ops::Workload chosen = alternatives[choose_alternative(alternatives, options_.measured_seconds)];
      op = chosen.op;
      extents = chosen.shape;
      if (op == twin) {
        packed = add_constant(n.inputs[1] + "_packed", sh.weight_shape(), ops::weight_to_packed(weight->f32.data(), s.k, s.c, s.r * s.s, sh.ib, sh.ob));
      } else {
        const int64_t m = ops::Conv2dWinogradShape::from_vector(extents).m;
        packed = add_constant(n.inputs[1] + "_winograd", ops::winograd_weight_shape(sh, m), ops::winograd_weight_transform(weight->f32.data(), sh, m));
      }
    }
    Node b = n;
    b.op = op;
    b.attrs["workload_shape"] = extents;
    b.inputs = {blocked(n.inputs[0], in_block), packed};
    if (n.inputs.size() > 2) {
      const Tensor* bias = in_.constant(n.inputs[2]);
      if (!bias) throw CompileError(n.describe() + ": the bias must be a constant to be blocked");
      b.inputs.push_back(add_constant(n.inputs[2] + "_blocked", {ops::ceil_div(s.k, out_block), out_block}, pad_bias(*bias, s.k, out_block)));
    }
    if (n.inputs.size() > 3) b.inputs.push_back(blocked(n.inputs[3], out_block));  // the residual
    b.outputs = {blocked_output(n.outputs.at(0), op, extents, out_block)};
    out_.nodes.push_back(std::move(b));
  }

  // The blocked value a twin kernel writes in place of plain output y.
  std::string blocked_output(const std::string& y, const std::string& op, const std::vector<int64_t>& extents, int64_t b) {
    const std::string blocked_y = out_.unique_name(y + "_nchw" + std::to_string(b) + "c");
    out_.set_value(Value{blocked_y, DType::Float32, ops::find_operator(op).output_shape(extents), nullptr});
    blocked_[y] = {blocked_y, b};
    return blocked_y;
  }

  // A 2-D pool of a blocked value runs blocked (max_pool2d_nchwc, avg_pool2d_nchwc) rather than
  // between a conversion to NCHW and one back.
  bool block_pool(const Node& n) {
    if ((n.op != "MaxPool" && n.op != "AveragePool") || n.inputs.empty()) return false;
    const auto it = blocked_.find(n.inputs[0]);
    if (it == blocked_.end()) return false;
    const NodeLowering lowering = lower_node(in_, n);
    if (!lowering.call) return false;
    const std::string twin = lowering.call->op->name() + "_nchwc";
    if (twin != "max_pool2d_nchwc" && twin != "avg_pool2d_nchwc") return false;
    const auto& [blocked_x, b] = it->second;
    std::vector<int64_t> extents = lowering.call->shape;
    extents.push_back(b);
    Node p = n;
    p.op = twin;
    p.attrs = {{"workload_shape", extents}};
    p.inputs = {blocked_x};
    p.outputs = {blocked_output(n.outputs.at(0), twin, extents, b)};
    out_.nodes.push_back(std::move(p));
    return true;
  }

  const Graph& in_;
  const PlanOptions& options_;
  Graph out_;
  std::map<std::string, std::pair<std::string, int64_t>> blocked_;  // plain name -> (blocked name, block)
  std::set<std::string> materialized_;                               // blocked values also made plain
  std::map<std::string, std::string> converted_;                     // "plain#b" -> its layout_to_nchwc
};

}  // namespace

Graph plan_layouts(const Graph& g, const PlanOptions& options) { return options.blocked_layouts ? LayoutPlanner(g, options).run() : g; }

}  // namespace tf::graph::passes

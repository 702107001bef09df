// Blocked activations between convolutions (NCHWc, the layouts fast CPU libraries keep): every
// groups-1 and depthwise conv2d* becomes its conv2d_nchwc* / depthwise_nchwc* twin with the weight
// packed here, once, at build time; its output stays blocked under a new value name, and the
// original (plain) name is produced by a layout_from_nchwc only where something reads it plainly.
// A plain value a blocked conv reads is converted once by layout_to_nchwc. The blocks are each
// conv's own choice (16 out, the input read as it is) unless the database measured what a
// graph-level plan (block_plan.h) needs to choose them jointly.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "compiler/error.h"

#include "compiler/ops/nchwc_shape.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/winograd.h"
#include "graph/constant_eval.h"
#include "graph/kernel_alternatives.h"
#include "graph/kernel_calls.h"
#include "graph/passes/block_plan.h"
#include "graph/passes/centered_bias.h"
#include "graph/passes/fused_body.h"
#include "graph/passes/passes.h"
#include "graph/tasks.h"

namespace tf::graph::passes {
namespace {

constexpr int64_t kBlock = 16;  // one AVX-512 vector of floats

// A depthwise weight [K, 1, R, S] as depthwise_nchwc and qdepthwise_nchwc read it, (K/b, R, S, b),
// zero past K, in its own type.
Tensor pack_depthwise_weight(const Tensor& w, const ops::DepthwiseNchwcShape& sh) {
  const int64_t taps = sh.conv.r * sh.conv.s;
  Tensor out;
  out.dtype = w.dtype;
  out.shape = sh.weight_shape();
  out.resize_elements(element_count(out.shape));
  for (int64_t o = 0; o < sh.conv.k; ++o)
    for (int64_t t = 0; t < taps; ++t) out.set(((o / sh.b) * taps + t) * sh.b + o % sh.b, w, o * taps + t);
  return out;
}

// An int8 weight [K, C, R, S] as qconv2d_nchwc reads it: (K/ob, C/ib, R, S, ib/4, ob, 4), zero
// past K and C.
Tensor pack_int8_weight(const Tensor& w, const ops::Conv2dNchwcShape& sh) {
  const int64_t k = sh.conv.k, c = sh.conv.c, taps = sh.conv.r * sh.conv.s, cb = sh.c_blocks(), groups = sh.ib / 4;
  std::vector<int64_t> out(static_cast<size_t>(sh.k_blocks() * cb * taps * sh.ib * sh.ob), 0);
  for (int64_t o = 0; o < k; ++o)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t ci = ch % sh.ib;
        const int64_t at =
            ((((o / sh.ob) * cb + ch / sh.ib) * taps + t) * groups + ci / 4) * sh.ob * 4 + (o % sh.ob) * 4 + ci % 4;
        out[static_cast<size_t>(at)] = w.i64[static_cast<size_t>((o * c + ch) * taps + t)];
      }
  return Tensor::ints({sh.k_blocks(), cb, sh.conv.r, sh.conv.s, groups, sh.ob, 4}, std::move(out), DType::Int8);
}

// A per-output-channel constant [K] as [K/b, b], zero past K, in its own type.
Tensor pad_channels(const Tensor& v, int64_t k, int64_t b) {
  Tensor out;
  out.dtype = v.dtype;
  out.shape = {ops::ceil_div(k, b), b};
  out.resize_elements(out.shape[0] * b);
  for (int64_t i = 0; i < k; ++i) out.set(i, v, i);
  return out;
}

std::vector<float> pad_bias(const Tensor& bias, int64_t k, int64_t b) {
  std::vector<float> out(static_cast<size_t>(ops::ceil_div(k, b) * b), 0.0f);
  std::copy(bias.f32.begin(), bias.f32.begin() + k, out.begin());
  return out;
}

class LayoutPlanner {
 public:
  LayoutPlanner(const Graph& in, const PlanOptions& options)
      : in_(in), options_(options), out_(in), blocks_(plan_blocks(in, options)) {
    out_.nodes.clear();
  }

  Graph run() {
    for (const Node& n : in_.nodes) {
      if (n.op == "qconv2d" || n.op == "qconv2d_relu" || n.op == "qdepthwise2d" || n.op == "qdepthwise2d_relu") {
        block_integer_conv(n);
        continue;
      }
      const std::string twin = blocked_conv_twin(in_, n);
      if (twin.empty()) {
        if (block_pool(n) || pool_globally(n) || block_elementwise(n)) continue;
        Node copy = n;
        for (auto& input : copy.inputs) input = plain(input);
        out_.nodes.push_back(std::move(copy));
      } else {
        block_conv(n, conv2d_shape(in_, n), twin);
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
    add_layout_node(typed("layout_from_nchwc", v), blocked_name, v, {shape[0], shape[1], shape[2], shape[3], b});
    materialized_.insert(v);
    return v;
  }

  // The value blocked by b: the conv's own blocked output, a layout_reblock_nchwc of it in another
  // block, or a layout_to_nchwc of the plain one.
  std::string blocked(const std::string& v, int64_t b) {
    if (block_is_plain(b)) return plain(v);  // the kernel reads the plain bytes as they are
    if (auto it = blocked_.find(v); it != blocked_.end() && it->second.second == b) return it->second.first;
    const std::string key = v + "#" + std::to_string(b);
    if (auto it = converted_.find(key); it != converted_.end()) return it->second;
    const Shape& shape = in_.value(v).shape;
    const std::string name = out_.unique_name(v + "_nchw" + std::to_string(b) + "c");
    const auto other_block = blocked_.find(v);
    if (other_block != blocked_.end()) {  // one copy from the block it is in, not two through NCHW
      const std::vector<int64_t> extents = {shape[0], shape[1], shape[2], shape[3], other_block->second.second, b};
      const std::string op = typed("layout_reblock_nchwc", v);
      out_.set_value(Value{name, in_.value(v).dtype, ops::find_operator(op).output_shape(extents), nullptr});
      add_layout_node(op, other_block->second.first, name, extents);
      return converted_[key] = name;
    }
    const std::vector<int64_t> extents = {shape[0], shape[1], shape[2], shape[3], b};
    const std::string op = typed("layout_to_nchwc", v);
    out_.set_value(Value{name, in_.value(v).dtype, ops::find_operator(op).output_shape(extents), nullptr});
    add_layout_node(op, plain(v), name, extents);
    return converted_[key] = name;
  }

  // The layout op moving v's element type: the float one, or its _u8 twin for a quantized value.
  std::string typed(const std::string& op, const std::string& v) const {
    return in_.value(v).dtype == DType::UInt8 ? op + "_u8" : op;
  }

  void add_layout_node(const std::string& op, const std::string& from, const std::string& to,
                       const std::vector<int64_t>& extents) {
    Node n;
    n.name = out_.unique_name(op + "_" + from);
    n.op = op;
    n.inputs = {from};
    n.outputs = {to};
    n.attrs["workload_shape"] = extents;
    out_.nodes.push_back(std::move(n));
  }

  std::string add_constant(const std::string& stem, Shape shape, std::vector<float> data) {
    return add_tensor(stem, Tensor::floats(std::move(shape), std::move(data)));
  }

  void block_conv(const Node& n, const ops::Conv2dShape& s, const std::string& twin) {
    const bool depthwise = twin.rfind("depthwise", 0) == 0;
    const auto planned = blocks_.find(n.name);
    const Tensor* weight = in_.constant(n.inputs.at(1));
    if (!weight)
      throw CompileError(n.describe() + ": the weight must be a constant to be packed for the blocked layout");
    std::vector<int64_t> extents;
    int64_t in_block, out_block;
    std::string packed, op = twin;
    if (depthwise) {
      ops::DepthwiseNchwcShape sh{s, planned != blocks_.end() ? planned->second.ob : kBlock};
      in_block = out_block = sh.b;
      extents = sh.to_vector();
      packed = add_tensor(n.inputs[1] + "_packed", pack_depthwise_weight(*weight, sh));
    } else {
      // An input already blocked is read as it is (a ragged last block is the reduction's tail); a plain
      // one of 3 channels (a first layer) is read in place as NCHW1c, not padded to 16: five times the
      // work otherwise.
      const auto producer = blocked_.find(n.inputs[0]);
      // A graph-level plan (block_plan.h) may choose other blocks, converting the input where it pays.
      const int64_t ib = planned != blocks_.end()     ? planned->second.ib
                         : producer != blocked_.end() ? producer->second.second
                                                      : plain_input_block(s.c);
      ops::Conv2dNchwcShape sh{s, ib, planned != blocks_.end() ? planned->second.ob : kBlock};
      in_block = sh.ib;
      out_block = sh.ob;
      // The direct kernel, or the alternative (Winograd) the database measured faster.
      const auto alternatives = kernel_alternatives({twin, sh.to_vector()});
      const ops::Workload& chosen =
          alternatives[choose_alternative(alternatives, options_.measured_seconds, options_.vector_registers)];
      op = chosen.op;
      extents = chosen.shape;
      if (op == twin) {
        packed = add_constant(n.inputs[1] + "_packed", sh.weight_shape(),
                              ops::weight_to_packed(weight->f32.data(), s.k, s.c, s.r * s.s, sh.ib, sh.ob));
      } else {
        const int64_t m = ops::Conv2dWinogradShape::from_vector(extents).m;
        packed = add_constant(n.inputs[1] + "_winograd", ops::winograd_weight_shape(sh, m),
                              ops::winograd_weight_transform(weight->f32.data(), sh, m));
      }
    }
    Node b = n;
    b.op = op;
    b.attrs["workload_shape"] = extents;
    b.inputs = {blocked(n.inputs[0], in_block), packed};
    if (n.inputs.size() > 2) {
      const Tensor* bias = in_.constant(n.inputs[2]);
      if (!bias) throw CompileError(n.describe() + ": the bias must be a constant to be blocked");
      b.inputs.push_back(add_constant(n.inputs[2] + "_blocked", {ops::ceil_div(s.k, out_block), out_block},
                                      pad_bias(*bias, s.k, out_block)));
    }
    if (n.inputs.size() > 3) b.inputs.push_back(blocked(n.inputs[3], out_block));  // the residual
    b.outputs = {blocked_output(n.outputs.at(0), op, extents, out_block)};
    out_.nodes.push_back(std::move(b));
  }

  // An input of shape [N, C, H or 1, W or 1] against an output [N, C, H, W]: blocked alike, it
  // broadcasts the same way ([N, C/b, 1, 1, b] against [N, C/b, H, W, b]).
  static bool broadcasts_per_channel(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
    return in.size() == 4 && in[0] == out[0] && in[1] == out[1] && (in[2] == out[2] || in[2] == 1) &&
           (in[3] == out[3] || in[3] == 1);
  }

  // An elementwise node (or fused chain) whose every tensor input is blocked alike and of its
  // output's shape, or one value per channel (a squeeze-and-excitation scale), runs on the blocked
  // values: elementwise work does not care how the elements lie, so the conversions to NCHW and
  // back go (a QDQ model's residual Add between two integer convs). Scalar constants broadcast as
  // before; a channel count the block does not divide stays plain, so no padded lane is ever
  // computed from garbage.
  bool block_elementwise(const Node& n) {
    if ((n.op != kFusedElementwise && !is_elementwise(n.op)) || n.outputs.size() != 1) return false;
    const Value& y = in_.value(n.outputs[0]);
    if (y.shape.size() != 4) return false;
    int64_t b = 0;
    for (const auto& input : n.inputs) {
      if (input.empty()) continue;
      const Value& v = in_.value(input);
      if (v.is_constant() && element_count(v.shape) == 1) continue;
      const auto it = blocked_.find(input);
      if (it == blocked_.end() || !broadcasts_per_channel(v.shape, y.shape) || (b != 0 && it->second.second != b))
        return false;
      b = it->second.second;
    }
    if (b == 0 || y.shape[1] % b != 0) return false;
    std::map<std::string, std::string> renamed;
    Node e = n;
    for (auto& input : e.inputs) {
      if (!blocked_.count(input)) continue;
      renamed[input] = blocked_.at(input).first;
      input = renamed[input];
    }
    const std::string blocked_y = out_.unique_name(n.outputs[0] + "_nchw" + std::to_string(b) + "c");
    out_.set_value(Value{blocked_y, y.dtype, {y.shape[0], y.shape[1] / b, y.shape[2], y.shape[3], b}, nullptr});
    blocked_[n.outputs[0]] = {blocked_y, b};
    renamed[n.outputs[0]] = blocked_y;
    e.outputs = {blocked_y};
    if (n.body) e.body = std::make_shared<const Graph>(rename_body_values(*n.body, renamed, out_));
    out_.nodes.push_back(std::move(e));
    return true;
  }

  // A fuse_qdq conv on integers (qconv2d, qdepthwise2d): blocked uint8 in and out, its int8 weight
  // packed as the blocked op reads it (four input channels per output lane; or (C/b, R, S, b)), bias
  // and requantizing scale per output block.
  void block_integer_conv(const Node& n) {
    const ops::Conv2dShape s = conv2d_shape(in_, n);
    const Tensor* weight = in_.constant(n.inputs.at(1));
    const Tensor* bias = in_.constant(n.inputs.at(2));
    const Tensor* scale = in_.constant(n.inputs.at(3));
    if (!weight || !bias || !scale || !in_.constant(n.inputs.at(4)))
      throw CompileError(n.describe() + ": the weight, bias, scale and zero points must be constants");
    const bool relu = n.op.size() > 5 && n.op.compare(n.op.size() - 5, 5, "_relu") == 0;
    std::string op;
    std::vector<int64_t> extents;
    int64_t in_block = kBlock, out_block = kBlock;
    Tensor packed;
    std::optional<Tensor> recentred_bias;
    if (n.op.rfind("qdepthwise2d", 0) == 0) {
      const ops::DepthwiseNchwcShape sh{s, kBlock};
      op = "qdepthwise_nchwc";
      extents = sh.to_vector();
      packed = pack_depthwise_weight(*weight, sh);
    } else {
      const ops::Conv2dNchwcShape sh{s, std::min<int64_t>(kBlock, s.c), kBlock};
      const int64_t per_output = s.c * s.r * s.s;
      if (options_.centered_int8)
        recentred_bias = centered_bias(*weight, *bias, [&](int64_t i) { return i / per_output; });
      op = recentred_bias ? "qconv2d_nchwc_centered" : "qconv2d_nchwc";
      extents = sh.to_vector();
      in_block = sh.ib;
      packed = pack_int8_weight(*weight, sh);
    }
    if (relu) op += "_relu";
    Node b = n;
    b.op = op;
    b.attrs = {{"workload_shape", extents}};
    b.inputs = {
        blocked(n.inputs[0], in_block), add_tensor(n.inputs[1] + "_packed", std::move(packed)),
        add_tensor(n.inputs[2] + "_blocked", pad_channels(recentred_bias ? *recentred_bias : *bias, s.k, out_block)),
        add_tensor(n.inputs[3] + "_blocked", pad_channels(*scale, s.k, out_block)), n.inputs[4]};
    b.outputs = {blocked_output(n.outputs.at(0), op, extents, out_block)};
    out_.nodes.push_back(std::move(b));
  }

  std::string add_tensor(const std::string& stem, Tensor t) {
    std::string name = out_.unique_name(stem);
    out_.set_constant(name, std::move(t));
    return name;
  }

  // The blocked value a twin kernel writes in place of plain output y.
  std::string blocked_output(const std::string& y, const std::string& op, const std::vector<int64_t>& extents,
                             int64_t b) {
    std::string blocked_y = out_.unique_name(y + "_nchw" + std::to_string(b) + "c");
    out_.set_value(Value{blocked_y, in_.value(y).dtype, ops::find_operator(op).output_shape(extents), nullptr});
    blocked_[y] = {blocked_y, b};
    return blocked_y;
  }

  // A 2-D pool of a blocked value runs blocked (max_pool2d_nchwc, avg_pool2d_nchwc) rather than
  // between a conversion to NCHW and one back.
  bool block_pool(const Node& n) {
    if (n.inputs.empty()) return false;
    const auto it = blocked_.find(n.inputs[0]);
    if (it == blocked_.end()) return false;
    const std::string twin = blocked_pool_twin(in_, n);
    if (twin.empty()) return false;
    const auto& [blocked_x, b] = it->second;
    std::vector<int64_t> extents = lower_node(in_, n).call->shape;
    extents.push_back(b);
    Node p = n;
    p.op = twin;
    p.attrs = {{"workload_shape", extents}};
    p.inputs = {blocked_x};
    p.outputs = {blocked_output(n.outputs.at(0), twin, extents, b)};
    out_.nodes.push_back(std::move(p));
    return true;
  }

  // A global pool of a value blocked by a divisor of its channels reads it blocked and writes the
  // plain result: a classifier's head without converting its last activation to NCHW.
  bool pool_globally(const Node& n) {
    const auto it = n.inputs.empty() ? blocked_.end() : blocked_.find(n.inputs[0]);
    if (it == blocked_.end()) return false;
    const auto& [blocked_x, b] = it->second;
    const std::string twin = global_pool_twin(in_, n, b);
    if (twin.empty()) return false;
    const Shape& x = in_.value(n.inputs[0]).shape;
    Node p = n;
    p.op = twin;
    p.attrs = {{"workload_shape", std::vector<int64_t>{x[0], x[1], x[2], x[3], b}}};
    p.inputs = {blocked_x};
    out_.nodes.push_back(std::move(p));
    return true;
  }

  const Graph& in_;
  const PlanOptions& options_;
  Graph out_;
  const std::map<std::string, BlockChoice> blocks_;                 // conv node -> the graph plan's blocks
  std::map<std::string, std::pair<std::string, int64_t>> blocked_;  // plain name -> (blocked name, block)
  std::set<std::string> materialized_;                              // blocked values also made plain
  std::map<std::string, std::string> converted_;                    // "plain#b" -> its conversion into b
};

}  // namespace

Graph plan_layouts(const Graph& g, const PlanOptions& options) {
  return options.blocked_layouts ? LayoutPlanner(g, options).run() : g;
}

}  // namespace tf::graph::passes

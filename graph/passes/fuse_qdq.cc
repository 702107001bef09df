// A QDQ model's quantized convolution becomes one integer kernel, as ONNX Runtime and TVM run
// such models:
//     DequantizeLinear(xq, sx, zx) -> Conv(DequantizeLinear(wq, sw, 0), bias) [-> Relu]
//         -> QuantizeLinear(sy, zy)
// is a qconv2d (or qconv2d_relu) node on xq, with the weight's int8 values, an int32 bias that
// holds round(bias / (sx * sw[k])) - zx * sum(wq[k]) (so the input's zero point costs nothing per
// pixel), the requantizing scale sx * sw[k] / sy, and the zero points {zx, zy}; plan_layouts runs
// it as qconv2d_nchwc. What it needs, or the nodes stay float: uint8 activations with a zero point
// per tensor, int8 weights with zero points 0 (per channel or per tensor), uint8 outputs, a 2-D conv
// of one group over a multiple of four input channels, and no other reader of the float values
// in between. The result equals the float graph's up to the output's rounding: one quantization
// step where float32 and the integer sum round a tie differently.
#include <cmath>
#include <optional>

#include "graph/passes/passes.h"
#include "graph/passes/pattern.h"

namespace tf::graph::passes {
namespace {

struct Quantization {
  double scale = 0, zero_point = 0;
};

// A DequantizeLinear or QuantizeLinear's scalar scale and zero point, if both are constants.
std::optional<Quantization> per_tensor(const Graph& g, const Node& n) {
  const auto scale = g.scalar_constant(n.inputs.at(1)), zero = g.scalar_constant(n.inputs.at(2));
  if (!scale || !zero || *scale <= 0) return std::nullopt;
  return Quantization{*scale, *zero};
}

struct QConvMatch {
  std::vector<size_t> nodes;  // the Conv, the Relu if any, the QuantizeLinear
  const Node* conv = nullptr;
  bool relu = false;
  const Node* quantize = nullptr;
  std::string xq;                     // the uint8 input
  Quantization x, y;                  // input and output quantization
  const Tensor* weight = nullptr;     // int8 [K, C, R, S]
  std::vector<double> weight_scales;  // per output channel
};

std::optional<QConvMatch> match(const Graph& g, size_t at) {
  const Node& conv = g.nodes[at];
  if (conv.op != "Conv" || conv.inputs.size() < 2 || conv.attr_int("group", 1) != 1) return std::nullopt;
  const Value& x = g.input_of(conv, 0);
  if (x.shape.size() != 4 || x.shape[1] % 4 != 0) return std::nullopt;
  QConvMatch m;
  m.conv = &conv;
  m.nodes.push_back(at);
  const int xp = g.producer(conv.inputs[0]);
  if (xp < 0 || g.nodes[static_cast<size_t>(xp)].op != "DequantizeLinear") return std::nullopt;
  const Node& dx = g.nodes[static_cast<size_t>(xp)];
  if (g.input_of(dx, 0).dtype != DType::UInt8) return std::nullopt;
  const auto xq = per_tensor(g, dx);
  if (!xq) return std::nullopt;
  m.xq = dx.inputs[0];
  m.x = *xq;

  const int dw_at = sole_producer(g, conv.inputs[1], "DequantizeLinear");
  if (dw_at < 0) return std::nullopt;
  const Node* dw = &g.nodes[static_cast<size_t>(dw_at)];
  m.weight = g.constant(dw->inputs[0]);
  const Tensor* scales = g.constant(dw->inputs[1]);
  const Tensor* zeros = g.constant(dw->inputs[2]);
  if (!m.weight || m.weight->dtype != DType::Int8 || !scales || !zeros) return std::nullopt;
  const int64_t k = m.weight->shape.at(0);
  if (scales->size() != 1 && scales->size() != k) return std::nullopt;
  for (int64_t i = 0; i < zeros->size(); ++i)
    if (zeros->at(i) != 0) return std::nullopt;
  for (int64_t i = 0; i < k; ++i) m.weight_scales.push_back(scales->at(scales->size() == 1 ? 0 : i));
  if (g.input_present(conv, 2) && !g.constant(conv.inputs[2])) return std::nullopt;

  int next = sole_reader(g, conv.outputs[0]);
  if (next >= 0 && g.nodes[static_cast<size_t>(next)].op == "Relu") {
    m.relu = true;
    m.nodes.push_back(static_cast<size_t>(next));
    next = sole_reader(g, g.nodes[static_cast<size_t>(next)].outputs[0]);
  }
  if (next < 0) return std::nullopt;
  const Node& q = g.nodes[static_cast<size_t>(next)];
  if (q.op != "QuantizeLinear" || g.output_of(q).dtype != DType::UInt8) return std::nullopt;
  const auto yq = per_tensor(g, q);
  if (!yq) return std::nullopt;
  m.nodes.push_back(static_cast<size_t>(next));
  m.quantize = &q;
  m.y = *yq;
  return m;
}

// The qconv2d node of a match, its constants added to g.
Node qconv_node(Graph& g, const QConvMatch& m) {
  const Tensor& w = *m.weight;
  const int64_t k = w.shape[0], per_k = w.size() / k;
  const Tensor* bias = g.input_present(*m.conv, 2) ? g.constant(m.conv->inputs[2]) : nullptr;
  std::vector<int64_t> bias_q(static_cast<size_t>(k));
  std::vector<float> scale(static_cast<size_t>(k));
  for (int64_t o = 0; o < k; ++o) {
    const double accumulator_scale = m.x.scale * m.weight_scales[static_cast<size_t>(o)];
    int64_t weight_sum = 0;
    for (int64_t i = 0; i < per_k; ++i) weight_sum += w.i64[static_cast<size_t>(o * per_k + i)];
    const double b = bias ? std::nearbyint(bias->at(o) / accumulator_scale) : 0.0;
    bias_q[static_cast<size_t>(o)] = static_cast<int64_t>(b) - static_cast<int64_t>(m.x.zero_point) * weight_sum;
    scale[static_cast<size_t>(o)] = static_cast<float>(accumulator_scale / m.y.scale);
  }
  const std::string stem = m.conv->name;
  const std::string weight_name = g.unique_name(stem + "_weight_int8");
  g.set_constant(weight_name, w);
  const std::string bias_name = g.unique_name(stem + "_bias_int32");
  g.set_constant(bias_name, Tensor::ints({k}, std::move(bias_q), DType::Int32));
  const std::string scale_name = g.unique_name(stem + "_requantize_scale");
  g.set_constant(scale_name, Tensor::floats({k}, std::move(scale)));
  const std::string zeros_name = g.unique_name(stem + "_zero_points");
  g.set_constant(
      zeros_name,
      Tensor::ints({2}, {static_cast<int64_t>(m.x.zero_point), static_cast<int64_t>(m.y.zero_point)}, DType::Int32));
  Node q;
  q.name = m.conv->name;
  q.op = m.relu ? "qconv2d_relu" : "qconv2d";
  q.inputs = {m.xq, weight_name, bias_name, scale_name, zeros_name};
  q.outputs = {m.quantize->outputs.at(0)};
  for (const char* a : {"dilations", "kernel_shape", "pads", "strides"})
    if (m.conv->has(a)) q.attrs[a] = m.conv->attrs.at(a);
  return q;
}

}  // namespace

Graph fuse_qdq(const Graph& in) {
  Graph g = in;
  std::vector<Replacement> replacements;
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    const auto m = match(in, i);
    if (!m || overlaps(replacements, m->nodes)) continue;
    replacements.push_back({m->nodes, qconv_node(g, *m)});
  }
  if (replacements.empty()) return in;
  Graph out = replace_nodes(std::move(g), std::move(replacements));
  out.remove_dead_nodes();  // the DequantizeLinear nodes only the convs read
  return out;
}

}  // namespace tf::graph::passes

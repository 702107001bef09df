// A QDQ model's quantized convolution becomes one integer kernel, as ONNX Runtime and TVM run
// such models:
//     DequantizeLinear(xq, sx, zx) -> Conv(DequantizeLinear(wq, sw, 0), bias) [-> Relu or a Clip(0,
//         hi) the output's saturation makes one] -> QuantizeLinear(sy, zy)
// is a qconv2d (or qconv2d_relu) node on xq, with the weight's int8 values, an int32 bias that
// holds round(bias / (sx * sw[k])) - zx * sum(wq[k]) (so the input's zero point costs nothing per
// pixel), the requantizing scale sx * sw[k] / sy, and the zero points {zx, zy}; plan_layouts runs
// it as qconv2d_nchwc. A depthwise conv (group = C = K, weights [C, 1, R, S]) in the same pattern
// is a qdepthwise2d node, which plan_layouts runs as qdepthwise_nchwc. A MatMul with a constant
// weight in the same pattern,
//     DequantizeLinear(xq) -> MatMul(DequantizeLinear(wq [K, N])) [-> Add(bias [N])] -> QuantizeLinear
// is a qdense node on the same terms (pack_dense_weights runs it as qdense_packed), the weight's
// scales per tensor or per column. What a conv needs, or the nodes stay float: uint8 activations
// with a zero point per tensor, int8 weights with zero points 0 (per channel or per tensor), uint8
// outputs, a 2-D conv of one group over a multiple of four input channels or a depthwise one, and
// no other reader of the float values in between. The result equals the float graph's up to the
// output's rounding: one quantization step where float32 and the integer sum round a tie differently.
// A MaxPool between a DequantizeLinear and a QuantizeLinear of the same parameters pools the uint8
// values (max_pool2d_u8), exactly, as ONNX Runtime drops such pairs.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <tuple>

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

// The uint8 input of the DequantizeLinear that produces `value`, with its quantization.
std::optional<std::pair<std::string, Quantization>> dequantized_uint8(const Graph& g, const std::string& value) {
  const int p = g.producer(value);
  if (p < 0 || g.nodes[static_cast<size_t>(p)].op != "DequantizeLinear") return std::nullopt;
  const Node& dq = g.nodes[static_cast<size_t>(p)];
  if (g.input_of(dq, 0).dtype != DType::UInt8) return std::nullopt;
  const auto q = per_tensor(g, dq);
  if (!q) return std::nullopt;
  return std::make_pair(dq.inputs[0], *q);
}

// Whether node `at` (-1: none) is a QuantizeLinear to uint8 with a constant scale and zero point;
// then the node and its quantization.
bool quantized_uint8(const Graph& g, int at, const Node** q, Quantization* y) {
  if (at < 0) return false;
  const Node& n = g.nodes[static_cast<size_t>(at)];
  if (n.op != "QuantizeLinear" || g.output_of(n).dtype != DType::UInt8) return false;
  const auto yq = per_tensor(g, n);
  if (!yq) return false;
  *q = &n;
  *y = *yq;
  return true;
}

// Whether Clip(0, hi) before a QuantizeLinear to uint8 (y) quantizes as a Relu would: the clip's
// top is at or past the value that already rounds to 255 ((254.5 - zy) * sy), so the saturation
// does it (MobileNet's ReLU6 with an output range calibrated to [0, 6]). Q is monotonic, so
// Q(clip(v, 0, hi)) = clamp(Q(v), Q(0), Q(hi)) = clamp(Q(v), zy, 255) then.
bool clip_is_relu_here(const Graph& g, const Node& clip, const Quantization& y) {
  const auto lo = g.input_present(clip, 1) ? g.scalar_constant(clip.inputs[1]) : std::nullopt;
  if (!lo || *lo != 0) return false;
  if (!g.input_present(clip, 2)) return true;
  const auto hi = g.scalar_constant(clip.inputs[2]);
  return hi && (254.5 - y.zero_point) * y.scale <= *hi;
}

struct QConvMatch {
  std::vector<size_t> nodes;  // the Conv, the Relu if any, the QuantizeLinear
  const Node* conv = nullptr;
  bool depthwise = false;  // one group per channel, as many outputs as inputs
  bool relu = false;
  const Node* quantize = nullptr;
  std::string xq;                     // the uint8 input
  Quantization x, y;                  // input and output quantization
  const Tensor* weight = nullptr;     // int8 [K, C, R, S]
  std::vector<double> weight_scales;  // per output channel
};

std::optional<QConvMatch> match(const Graph& g, size_t at) {
  const Node& conv = g.nodes[at];
  if (conv.op != "Conv" || conv.inputs.size() < 2) return std::nullopt;
  const Value& x = g.input_of(conv, 0);
  if (x.shape.size() != 4) return std::nullopt;
  const int64_t groups = conv.attr_int("group", 1);
  const bool depthwise = groups > 1 && groups == x.shape[1] && g.input_of(conv, 1).shape.at(0) == groups;
  if (!depthwise && (groups != 1 || x.shape[1] % 4 != 0)) return std::nullopt;
  QConvMatch m;
  m.conv = &conv;
  m.depthwise = depthwise;
  m.nodes.push_back(at);
  const auto xq = dequantized_uint8(g, conv.inputs[0]);
  if (!xq) return std::nullopt;
  std::tie(m.xq, m.x) = *xq;

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
  const Node* activation = nullptr;
  if (next >= 0 &&
      (g.nodes[static_cast<size_t>(next)].op == "Relu" || g.nodes[static_cast<size_t>(next)].op == "Clip")) {
    activation = &g.nodes[static_cast<size_t>(next)];
    m.nodes.push_back(static_cast<size_t>(next));
    next = sole_reader(g, activation->outputs[0]);
  }
  if (!quantized_uint8(g, next, &m.quantize, &m.y)) return std::nullopt;
  if (activation && activation->op == "Clip" && !clip_is_relu_here(g, *activation, m.y)) return std::nullopt;
  m.relu = activation != nullptr;
  m.nodes.push_back(static_cast<size_t>(next));
  return m;
}

struct QDenseMatch {
  std::vector<size_t> nodes;  // the MatMul, the bias Add if any, the QuantizeLinear
  const Node* matmul = nullptr;
  const Tensor* bias = nullptr;  // [N] float, or none
  const Node* quantize = nullptr;
  std::string xq;
  Quantization x, y;
  const Tensor* weight = nullptr;     // int8 [K, N]
  std::vector<double> weight_scales;  // per column
};

// A [N] vector, or one that broadcasts as one along the last axis ([1, N], [1, 1, N]).
bool is_row_vector(const Tensor& t, int64_t n) {
  if (t.size() != n || t.shape.empty() || t.shape.back() != n) return false;
  return std::all_of(t.shape.begin(), t.shape.end() - 1, [](int64_t d) { return d == 1; });
}

std::optional<QDenseMatch> match_dense(const Graph& g, size_t at) {
  const Node& mm = g.nodes[at];
  if (mm.op != "MatMul" || mm.inputs.size() != 2) return std::nullopt;
  QDenseMatch m;
  m.matmul = &mm;
  m.nodes.push_back(at);
  const auto x = dequantized_uint8(g, mm.inputs[0]);
  if (!x || g.value(x->first).shape.size() < 2) return std::nullopt;
  std::tie(m.xq, m.x) = *x;

  const int dw_at = sole_producer(g, mm.inputs[1], "DequantizeLinear");
  if (dw_at < 0) return std::nullopt;
  const Node& dw = g.nodes[static_cast<size_t>(dw_at)];
  m.weight = g.constant(dw.inputs[0]);
  const Tensor* scales = g.constant(dw.inputs[1]);
  const Tensor* zeros = g.input_present(dw, 2) ? g.constant(dw.inputs[2]) : nullptr;
  if (!m.weight || m.weight->dtype != DType::Int8 || m.weight->shape.size() != 2 || !scales) return std::nullopt;
  const int64_t k = m.weight->shape[0], n = m.weight->shape[1];
  if (k % 4 != 0 || (scales->size() != 1 && !is_row_vector(*scales, n))) return std::nullopt;
  if (zeros) {
    for (int64_t i = 0; i < zeros->size(); ++i)
      if (zeros->at(i) != 0) return std::nullopt;
  }
  for (int64_t i = 0; i < n; ++i) {
    const double scale = scales->at(scales->size() == 1 ? 0 : i);
    if (scale <= 0) return std::nullopt;
    m.weight_scales.push_back(scale);
  }

  int next = sole_reader(g, mm.outputs[0]);
  if (next >= 0 && g.nodes[static_cast<size_t>(next)].op == "Add") {
    const Node& add = g.nodes[static_cast<size_t>(next)];
    const std::string& other = add.inputs.at(add.inputs[0] == mm.outputs[0] ? 1 : 0);
    const Tensor* bias = g.constant(other);
    if (!bias || bias->dtype != DType::Float32 || !is_row_vector(*bias, n)) return std::nullopt;
    m.bias = bias;
    m.nodes.push_back(static_cast<size_t>(next));
    next = sole_reader(g, add.outputs[0]);
  }
  if (!quantized_uint8(g, next, &m.quantize, &m.y)) return std::nullopt;
  m.nodes.push_back(static_cast<size_t>(next));
  return m;
}

// The requantizing constants of an integer product: per output channel o, the int32 bias
// round(bias[o] / (sx * sw[o])) - zx * weight_sum[o] and the scale sx * sw[o] / sy; and the zero
// points {zx, zy}. Their names, the constants added to g.
struct Requantize {
  std::string bias, scale, zero_points;
};

Requantize requantize_constants(Graph& g, const std::string& stem, const Quantization& x, const Quantization& y,
                                const std::vector<double>& weight_scales, const std::vector<int64_t>& weight_sums,
                                const std::function<double(int64_t)>& bias_of) {
  const int64_t k = static_cast<int64_t>(weight_scales.size());
  std::vector<int64_t> bias_q(static_cast<size_t>(k));
  std::vector<float> scale(static_cast<size_t>(k));
  for (int64_t o = 0; o < k; ++o) {
    const double accumulator_scale = x.scale * weight_scales[static_cast<size_t>(o)];
    const double b = std::nearbyint(bias_of(o) / accumulator_scale);
    bias_q[static_cast<size_t>(o)] =
        static_cast<int64_t>(b) - static_cast<int64_t>(x.zero_point) * weight_sums[static_cast<size_t>(o)];
    scale[static_cast<size_t>(o)] = static_cast<float>(accumulator_scale / y.scale);
  }
  Requantize r;
  r.bias = g.unique_name(stem + "_bias_int32");
  g.set_constant(r.bias, Tensor::ints({k}, std::move(bias_q), DType::Int32));
  r.scale = g.unique_name(stem + "_requantize_scale");
  g.set_constant(r.scale, Tensor::floats({k}, std::move(scale)));
  r.zero_points = g.unique_name(stem + "_zero_points");
  g.set_constant(
      r.zero_points,
      Tensor::ints({2}, {static_cast<int64_t>(x.zero_point), static_cast<int64_t>(y.zero_point)}, DType::Int32));
  return r;
}

// The qdense node of a match, its constants added to g.
Node qdense_node(Graph& g, const QDenseMatch& m) {
  const Tensor& w = *m.weight;
  const int64_t k = w.shape[0], n = w.shape[1];
  std::vector<int64_t> sums(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t o = 0; o < n; ++o) sums[static_cast<size_t>(o)] += w.i64[static_cast<size_t>(i * n + o)];
  const std::string stem = m.matmul->name;
  const Requantize r = requantize_constants(g, stem, m.x, m.y, m.weight_scales, sums,
                                            [&](int64_t o) { return m.bias ? m.bias->at(o) : 0.0; });
  const std::string weight_name = g.unique_name(stem + "_weight_int8");
  g.set_constant(weight_name, w);
  Node q;
  q.name = m.matmul->name;
  q.op = "qdense";
  q.inputs = {m.xq, weight_name, r.bias, r.scale, r.zero_points};
  q.outputs = {m.quantize->outputs.at(0)};
  return q;
}

// The qconv2d node of a match, its constants added to g.
Node qconv_node(Graph& g, const QConvMatch& m) {
  const Tensor& w = *m.weight;
  const int64_t k = w.shape[0], per_k = w.size() / k;
  const Tensor* bias = g.input_present(*m.conv, 2) ? g.constant(m.conv->inputs[2]) : nullptr;
  std::vector<int64_t> sums(static_cast<size_t>(k), 0);
  for (int64_t o = 0; o < k; ++o)
    for (int64_t i = 0; i < per_k; ++i) sums[static_cast<size_t>(o)] += w.i64[static_cast<size_t>(o * per_k + i)];
  const std::string stem = m.conv->name;
  const Requantize r = requantize_constants(g, stem, m.x, m.y, m.weight_scales, sums,
                                            [&](int64_t o) { return bias ? bias->at(o) : 0.0; });
  const std::string weight_name = g.unique_name(stem + "_weight_int8");
  g.set_constant(weight_name, w);
  Node q;
  q.name = m.conv->name;
  q.op = std::string(m.depthwise ? "qdepthwise2d" : "qconv2d") + (m.relu ? "_relu" : "");
  q.inputs = {m.xq, weight_name, r.bias, r.scale, r.zero_points};
  q.outputs = {m.quantize->outputs.at(0)};
  for (const char* a : {"dilations", "group", "kernel_shape", "pads", "strides"})
    if (m.conv->has(a)) q.attrs[a] = m.conv->attrs.at(a);
  return q;
}

// DequantizeLinear(xq) -> MaxPool -> QuantizeLinear with the dequantization's own scale and zero
// point: max commutes with the monotonic dequantization, and quantizing a dequantized value with
// its own parameters gives back its integer exactly, so the pool runs on xq (max_pool2d_u8).
struct QPoolMatch {
  std::vector<size_t> nodes;  // the MaxPool, the QuantizeLinear
  Node pool;                  // on xq, writing the quantized output
};

std::optional<QPoolMatch> match_pool(const Graph& g, size_t at) {
  const Node& pool = g.nodes[at];
  if (pool.op != "MaxPool" || g.input_of(pool, 0).shape.size() != 4) return std::nullopt;
  const auto dilations = pool.attr_ints("dilations", {});
  if (std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d != 1; })) return std::nullopt;
  const auto xq = dequantized_uint8(g, pool.inputs[0]);
  if (!xq) return std::nullopt;
  const int next = sole_reader(g, pool.outputs[0]);
  const Node* q = nullptr;
  Quantization y;
  if (!quantized_uint8(g, next, &q, &y)) return std::nullopt;
  if (y.scale != xq->second.scale || y.zero_point != xq->second.zero_point) return std::nullopt;
  QPoolMatch m{{at, static_cast<size_t>(next)}, pool};
  m.pool.inputs = {xq->first};
  m.pool.outputs = {q->outputs[0]};
  return m;
}

}  // namespace

Graph fuse_qdq(const Graph& in) {
  Graph g = in;
  std::vector<Replacement> replacements;
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    if (const auto m = match(in, i); m && !overlaps(replacements, m->nodes)) {
      replacements.push_back({m->nodes, qconv_node(g, *m)});
    } else if (const auto d = match_dense(in, i); d && !overlaps(replacements, d->nodes)) {
      replacements.push_back({d->nodes, qdense_node(g, *d)});
    } else if (auto p = match_pool(in, i); p && !overlaps(replacements, p->nodes)) {
      replacements.push_back({p->nodes, std::move(p->pool)});
    }
  }
  if (replacements.empty()) return in;
  Graph out = replace_nodes(std::move(g), std::move(replacements));
  out.remove_dead_nodes();  // the DequantizeLinear nodes only the convs read
  return out;
}

}  // namespace tf::graph::passes

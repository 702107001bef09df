// QuantizeLinear and DequantizeLinear, as ONNX defines them: y = saturate(round(x / scale) + zero_point)
// with halves rounded to even, into int8 or uint8 (the zero point's type, uint8 without one), and
// y = (x - zero_point) * scale back to float32. A scale of one element quantizes the whole tensor;
// a 1-D scale of x's extent along `axis` quantizes each slice along it (per channel), which the
// normalization turns into a scale broadcast along that axis. Both are elementwise kernels that
// fuse into chains like any other; the integer kernels a QDQ model is meant to run come from the
// passes that read these nodes around a conv or a matmul. Blocked quantization (block_size) and
// float8 types are refused. DynamicQuantizeLinear is both with the range measured at run time.
#include <algorithm>
#include <cmath>
#include <map>

#include "graph/ops/elementwise.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using K = ops::ElementwiseKind;
using rules::fail;

bool quantized(DType t) { return t == DType::Int8 || t == DType::UInt8; }

// ONNX's TensorProto codes of the types output_dtype may name.
std::optional<DType> quantized_type(int64_t onnx_type) {
  if (onnx_type == 2) return DType::UInt8;
  if (onnx_type == 3) return DType::Int8;
  return std::nullopt;
}

std::optional<std::string> refuse_blocks(const Node& n) {
  if (n.attr_int("block_size", 0) != 0)
    return "attribute 'block_size' = " + std::to_string(n.attr_int("block_size", 0)) +
           ": blocked quantization is not supported (per tensor or per axis)";
  return std::nullopt;
}

// A per-axis scale (and zero point) reshaped to broadcast along `axis` of x: [C] -> [C, 1, ..., 1].
// A one-element scale is per tensor and stays as it is.
void broadcast_along_axis(Graph& g, Node& n, std::vector<Node>& nodes) {
  const Value& x = rules::in(g, n, 0);
  const Value& scale = rules::in(g, n, 1);
  const int64_t count = element_count(scale.shape);
  if (count == 1 || scale.shape.empty()) {
    n.attrs.erase("axis");
    return;
  }
  if (scale.shape.size() != 1)
    fail(n, "scale " + shape_str(scale.shape) + " must be a scalar or 1-D (blocked quantization is not supported)");
  const auto rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", 1);
  if (axis < -rank || axis >= rank)
    fail(n,
         "attribute 'axis' = " + std::to_string(axis) + " is out of range for input 0 of rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  if (x.shape[axis] != count) {
    fail(n, "scale has " + std::to_string(count) + " elements; input 0 " + shape_str(x.shape) + " has " +
                std::to_string(x.shape[axis]) + " along axis " + std::to_string(axis));
  }
  Shape along(static_cast<size_t>(rank - axis), 1);
  along[0] = count;
  for (size_t i = 1; i < n.inputs.size() && i < 3; ++i) {
    if (!g.input_present(n, i)) continue;
    if (g.input_of(n, i).shape != scale.shape)
      fail(n, "zero point " + shape_str(g.input_of(n, i).shape) + " and scale " + shape_str(scale.shape) +
                  " differ in shape");
    n.inputs[i] = rules::reshape_to(g, n.inputs[i], along, nodes);
  }
  n.attrs.erase("axis");
}

// The saturating quantization of one value, as the kernel computes it: x / scale in float32.
double quantize(double x, double scale, double zero_point, DType to) {
  const float q = std::nearbyint(static_cast<float>(x) / static_cast<float>(scale));
  return std::clamp(static_cast<double>(q) + zero_point, static_cast<double>(dtype_min(to)),
                    static_cast<double>(dtype_max(to)));
}

// Both ops: x, scale and an optional zero point, at the same since-versions.
elementwise::Spec spec_of(const std::string& name) {
  elementwise::Spec s;
  s.name = name;
  s.versions = {10, 13, 19, 21};
  s.min_inputs = 2;
  s.max_inputs = 3;
  return s;
}

OpDef quantize_linear() {
  elementwise::Spec s = spec_of("QuantizeLinear");
  s.typed_apart = {1, 2};
  s.output_dtype = [](const Node&, const std::vector<DType>& in) { return in.at(2); };
  s.kernel_takes = [](size_t i, DType t) { return i == 2 ? quantized(t) : t == DType::Float32; };
  s.expression = [](ElementwiseArgs& args, const Graph& scope, const Node& n) {
    const DType to = scope.input_of(n, 2).dtype;
    const auto x = args.value(n.inputs.at(0)), scale = args.value(n.inputs.at(1));
    const auto zero_point = ops::ew_cast(args.value(n.inputs.at(2)), DType::Float32);
    const auto q = ops::ew_binary(K::Add, ops::ew_unary(K::Round, ops::ew_binary(K::Div, x, scale)), zero_point);
    return ops::ew_cast(ops::ew_clip(q, static_cast<double>(dtype_min(to)), static_cast<double>(dtype_max(to))), to);
  };
  OpDef d = elementwise::make_op(s);
  d.attributes = {"axis", "saturate", "block_size", "output_dtype"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (n.has("output_dtype") && !quantized_type(n.attr_int("output_dtype", 0)))
      return "attribute 'output_dtype' = " + onnx_dtype_name(n.attr_int("output_dtype", 0)) +
             " is not supported (INT8, UINT8)";
    return refuse_blocks(n);
  };
  // Canonical: a zero point always present (its type is the output's), per-axis scales broadcast.
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    std::vector<Node> nodes;
    if (n.inputs.size() < 3 || n.inputs[2].empty()) {
      const DType to = quantized_type(n.attr_int("output_dtype", 2)).value_or(DType::UInt8);
      n.inputs.resize(3);
      n.inputs[2] = rules::add_constant(g, n.name + "_zero_point", Tensor::ints({}, {0}, to));
    } else if (n.has("output_dtype") && g.input_of(n, 2).dtype != quantized_type(n.attr_int("output_dtype", 0))) {
      fail(n, "attribute 'output_dtype' says " + onnx_dtype_name(n.attr_int("output_dtype", 0)) +
                  " and the zero point is " + dtype_name(g.input_of(n, 2).dtype));
    }
    if (!quantized(g.input_of(n, 2).dtype))
      fail(n, "the zero point is " + std::string(dtype_name(g.input_of(n, 2).dtype)) + "; int8 or uint8 expected");
    broadcast_along_axis(g, n, nodes);
    n.attrs.erase("saturate");  // concerns float8 outputs only
    n.attrs.erase("output_dtype");
    nodes.push_back(std::move(n));
    return nodes;
  };
  d.fold = [s](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    const Value& out = g.value(n.outputs.at(0));
    elementwise::Spec one = s;
    one.f = [to = out.dtype](const std::vector<double>& a) { return quantize(a[0], a[1], a[2], to); };
    return elementwise::evaluate(n, inputs, out.shape, out.dtype, one);
  };
  return d;
}

OpDef dequantize_linear() {
  elementwise::Spec s = spec_of("DequantizeLinear");
  s.typed_apart = {1};
  s.output_dtype = [](const Node&, const std::vector<DType>&) { return DType::Float32; };
  s.kernel_takes = [](size_t i, DType t) { return i == 1 ? t == DType::Float32 : quantized(t) || t == DType::Int32; };
  // (x - zero_point) in float32 is exact for 8-bit values; an int32 x (a bias) has no zero point.
  s.f = [](const std::vector<double>& a) {
    const double zero_point = a.size() > 2 ? a[2] : 0;
    return static_cast<double>(static_cast<float>(a[0] - zero_point) * static_cast<float>(a[1]));
  };
  s.expression = [](ElementwiseArgs& args, const Graph& scope, const Node& n) {
    ops::ElementwiseExprPtr x = ops::ew_cast(args.value(n.inputs.at(0)), DType::Float32);
    if (scope.input_present(n, 2))
      x = ops::ew_binary(K::Sub, x, ops::ew_cast(args.value(n.inputs.at(2)), DType::Float32));
    // Fenced: inside a fused kernel the next Add must not become a multiply-add, or the sum would
    // differ from the one of the stored dequantized value by a rounding, and a requantization by a step.
    return ops::ew_unary(K::Fence, ops::ew_binary(K::Mul, x, args.value(n.inputs.at(1))));
  };
  OpDef d = elementwise::make_op(s);
  d.attributes = {"axis", "block_size"};
  d.check = [](const Node& n, const OpVersion&) { return refuse_blocks(n); };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    std::vector<Node> nodes;
    if (!quantized(rules::in(g, n, 0).dtype) && rules::in(g, n, 0).dtype != DType::Int32)
      fail(n, "input 0 is " + std::string(dtype_name(rules::in(g, n, 0).dtype)) + "; int8, uint8 or int32 expected");
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && g.input_of(n, 2).dtype != g.input_of(n, 0).dtype)
      fail(n, "the zero point is " + std::string(dtype_name(g.input_of(n, 2).dtype)) + " and input 0 " +
                  dtype_name(g.input_of(n, 0).dtype));
    broadcast_along_axis(g, n, nodes);
    nodes.push_back(std::move(n));
    return nodes;
  };
  return d;
}

// DynamicQuantizeLinear as ONNX defines it, in the ops above: the range [min(x, 0), max(x, 0)] over
// the whole tensor, scale = range / 255, zero point = QuantizeLinear(-min, scale) into uint8 (round
// half to even, saturated), y = QuantizeLinear(x, scale, zero point).
OpDef dynamic_quantize_linear() {
  OpDef d;
  d.name = "DynamicQuantizeLinear";
  d.versions = {11};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (n.inputs.size() != 1 || n.inputs[0].empty()) return std::string("takes one input");
    if (n.outputs.size() != 3) return std::string("has three outputs (y, y_scale, y_zero_point)");
    return std::nullopt;
  };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    const Value& x = rules::in(g, n, 0);
    if (x.dtype != DType::Float32)
      fail(n, "input 0 is " + std::string(dtype_name(x.dtype)) + "; DynamicQuantizeLinear takes float32");
    std::vector<int64_t> axes;
    for (size_t a = 0; a < x.shape.size(); ++a) axes.push_back(static_cast<int64_t>(a));
    const std::map<std::string, Attribute> whole{{"axes", axes}, {"keepdims", int64_t{0}}};
    rules::Steps s(g, n);
    const std::string zero = s.scalar("zero", 0, DType::Float32);
    const std::string lo = s.add("Min", {s.add("ReduceMin", {n.inputs[0]}, "min", whole), zero}, "low");
    const std::string hi = s.add("Max", {s.add("ReduceMax", {n.inputs[0]}, "max", whole), zero}, "high");
    const std::string scale = s.add("Div", {s.add("Sub", {hi, lo}, "range"), s.scalar("steps", 255, DType::Float32)},
                                    "scale", {}, n.outputs[1]);
    const std::string zero_point =
        s.add("QuantizeLinear", {s.add("Neg", {lo}, "negated_low"), scale, s.scalar("uint8_zero", 0, DType::UInt8)},
              "zero_point", {}, n.outputs[2]);
    s.add("QuantizeLinear", {n.inputs[0], scale, zero_point}, "quantized", {}, n.outputs[0]);
    return s.take();
  };
  return d;
}

}  // namespace

void add_quantize_ops(std::vector<OpDef>& ops) {
  ops.push_back(quantize_linear());
  ops.push_back(dequantize_linear());
  ops.push_back(dynamic_quantize_linear());
}

}  // namespace tf::graph

// The integer-operator forms of quantized models, imported as the QDQ form they compute:
//   QLinearConv / QLinearMatMul: DequantizeLinear of each operand (per-tensor, or per output
//     channel / column for the weights) -> Conv / MatMul -> QuantizeLinear, the bias (int32, scaled
//     by x_scale * w_scale as ONNX specifies) dequantized into the Conv's float bias;
//   ConvInteger / MatMulInteger: the operands less their zero points as floats -> Conv / MatMul ->
//     Cast to int32 (exact while partial sums stay below 2^24, which a 3x3 conv over 64 channels of
//     full-range bytes exceeds only in its last bits).
// The expansion is imported like nodes the model wrote (OpDef::expands), so the QDQ passes
// (fuse_qdq) turn what they recognise back into integer kernels, and the rest runs in float.
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/window.h"

namespace tf::graph {
namespace {

using rules::fail;

// Refuses a node without its `required` leading inputs, with more than `optional` after them, or
// with other than one output.
std::optional<std::string> check_inputs(const Node& n, size_t required, size_t optional) {
  if (n.inputs.size() > required + optional)
    return "takes at most " + std::to_string(required + optional) + " inputs, got " + std::to_string(n.inputs.size());
  for (size_t i = 0; i < required; ++i) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return "input " + std::to_string(i) + " is required";
  }
  if (n.outputs.size() != 1) return std::string("has one output");
  return std::nullopt;
}

// DequantizeLinear(x, scale, zero point) along `axis` (for a per-axis scale).
std::string dequantized(rules::Steps& s, const std::string& x, const std::string& scale, const std::string& zero,
                        const std::string& stem, int64_t axis) {
  std::vector<std::string> in = {x, scale};
  if (!zero.empty()) in.push_back(zero);
  return s.add("DequantizeLinear", in, stem, {{"axis", axis}});
}

// An integer operand less its (optional) zero point, as float32: DequantizeLinear with unit scales
// shaped like the zero point (one per row, column or channel when it is 1-D).
std::string shifted(Graph& g, const Node& n, rules::Steps& s, size_t x, size_t zero, const std::string& stem,
                    int64_t axis) {
  if (!g.input_present(n, zero))
    return dequantized(s, n.inputs[x], s.scalar(stem + "_unit", 1, DType::Float32), "", stem, axis);
  const Shape& zs = rules::in(g, n, zero).shape;
  if (zs.size() > 1) fail(n, "zero point " + shape_str(zs) + " must be a scalar or 1-D");
  const std::string unit = s.constant(stem + "_unit", Tensor::floats(zs, std::vector<float>(element_count(zs), 1.0f)));
  return dequantized(s, n.inputs[x], unit, n.inputs[zero], stem, axis);
}

OpDef qlinear_conv() {
  OpDef d;
  d.name = "QLinearConv";
  d.versions = {10};
  d.expands = true;
  d.attributes = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
  d.check = [](const Node& n, const OpVersion&) {
    if (auto why = check_inputs(n, 8, 1)) return why;
    return window::check(n, window::Kind::Conv);
  };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    rules::Steps s(g, n);
    const std::string x = dequantized(s, n.inputs[0], n.inputs[1], n.inputs[2], "x", 1);
    const std::string w = dequantized(s, n.inputs[3], n.inputs[4], n.inputs[5], "w", 0);
    std::vector<std::string> conv_inputs = {x, w};
    if (g.input_present(n, 8)) {
      const std::string bias_scale = s.add("Mul", {n.inputs[1], n.inputs[4]}, "bias_scale");
      conv_inputs.push_back(dequantized(s, n.inputs[8], bias_scale, "", "bias", 0));
    }
    const std::string y = s.add("Conv", conv_inputs, "conv", n.attrs);
    s.add("QuantizeLinear", {y, n.inputs[6], n.inputs[7]}, "y", {}, n.outputs[0]);
    return s.take();
  };
  return d;
}

OpDef qlinear_matmul() {
  OpDef d;
  d.name = "QLinearMatMul";
  d.versions = {10, 21};
  d.expands = true;
  d.check = [](const Node& n, const OpVersion&) { return check_inputs(n, 8, 0); };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    rules::Steps s(g, n);
    // A 1-D scale of a quantizes it per row, of b per column.
    const std::string a = dequantized(s, n.inputs[0], n.inputs[1], n.inputs[2], "a", -2);
    const std::string b = dequantized(s, n.inputs[3], n.inputs[4], n.inputs[5], "b", -1);
    const std::string y = s.add("MatMul", {a, b}, "matmul");
    s.add("QuantizeLinear", {y, n.inputs[6], n.inputs[7]}, "y", {{"axis", int64_t{-1}}}, n.outputs[0]);
    return s.take();
  };
  return d;
}

OpDef conv_integer() {
  OpDef d;
  d.name = "ConvInteger";
  d.versions = {10};
  d.expands = true;
  d.attributes = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
  d.check = [](const Node& n, const OpVersion&) {
    if (auto why = check_inputs(n, 2, 2)) return why;
    return window::check(n, window::Kind::Conv);
  };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    rules::Steps s(g, n);
    const std::string x = shifted(g, n, s, 0, 2, "x", 1);
    const std::string w = shifted(g, n, s, 1, 3, "w", 0);
    const std::string y = s.add("Conv", {x, w}, "conv", n.attrs);
    s.add("Cast", {y}, "y", {{"to", int64_t{6}}}, n.outputs[0]);  // INT32
    return s.take();
  };
  return d;
}

OpDef matmul_integer() {
  OpDef d;
  d.name = "MatMulInteger";
  d.versions = {10};
  d.expands = true;
  d.check = [](const Node& n, const OpVersion&) { return check_inputs(n, 2, 2); };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    rules::Steps s(g, n);
    const std::string a = shifted(g, n, s, 0, 2, "a", -2);  // a 1-D zero point of a: one per row
    const std::string b = shifted(g, n, s, 1, 3, "b", -1);  // of b: one per column
    const std::string y = s.add("MatMul", {a, b}, "matmul");
    s.add("Cast", {y}, "y", {{"to", int64_t{6}}}, n.outputs[0]);
    return s.take();
  };
  return d;
}

}  // namespace

void add_qlinear_ops(std::vector<OpDef>& ops) {
  ops.push_back(qlinear_conv());
  ops.push_back(qlinear_matmul());
  ops.push_back(conv_integer());
  ops.push_back(matmul_integer());
}

}  // namespace tf::graph

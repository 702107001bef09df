#include "graph/onnx_nodes.h"

#include <map>
#include <set>

#include "compiler/error.h"
#include "graph/shape_inference.h"

namespace tf::graph::onnx_import {
namespace {

struct OpSpec {
  std::set<std::string> attributes;  // the ones the importer understands
  int64_t since = 1;                 // the first opset of the default domain that has the op
};

const std::map<std::string, OpSpec>& supported_ops() {
  static const std::map<std::string, OpSpec> ops = {
      {"Conv", {{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}}},
      {"Gemm", {{"alpha", "beta", "transA", "transB"}}},
      {"MatMul", {}},
      {"Add", {}}, {"Sub", {}}, {"Mul", {}}, {"Div", {}}, {"Pow", {}}, {"Sqrt", {}},
      {"Relu", {}}, {"Clip", {}}, {"Sigmoid", {}}, {"Erf", {}}, {"Tanh", {}},
      {"BatchNormalization", {{"epsilon", "momentum", "training_mode"}}},
      {"MaxPool", {{"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}}},
      {"AveragePool", {{"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"}}},
      {"GlobalAveragePool", {}},
      {"Flatten", {{"axis"}}},
      {"Reshape", {{"allowzero"}}},
      {"Transpose", {{"perm"}}},
      {"Concat", {{"axis"}}},
      {"Softmax", {{"axis"}}},
      {"ReduceMean", {{"axes", "keepdims"}}},
      {"LayerNormalization", {{"axis", "epsilon", "stash_type"}, 17}},
      {"Constant", {{"value", "value_float", "value_floats", "value_int", "value_ints"}}},
      {"Identity", {}},
      {"Dropout", {{"ratio", "seed"}}},
      {"Shape", {{"start", "end"}}},
      {"Gather", {{"axis"}}},
      {"Unsqueeze", {{"axes"}}},
      {"Squeeze", {{"axes"}}},
      {"Cast", {{"to"}}},
  };
  return ops;
}

std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& p, const std::string& name) {
  for (const auto& a : p.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// Attribute values the kernels cannot honour, named with the value found.
std::optional<std::string> refuse_attribute_value(const onnx::NodeProto& p) {
  const std::string& op = p.op_type();
  auto int_attr = [&](const char* name) -> std::optional<int64_t> {
    const auto* a = find_attr(p, name);
    if (!a) return std::nullopt;
    return a->i();
  };
  auto ints_attr = [&](const char* name) -> std::vector<int64_t> {
    const auto* a = find_attr(p, name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
  };
  auto all_equal = [](const std::vector<int64_t>& v) {
    for (int64_t x : v) {
      if (x != v.front()) return false;
    }
    return true;
  };
  if (const auto* a = find_attr(p, "auto_pad")) {
    const std::string v = a->s();
    const bool same = v == "SAME_UPPER" || v == "SAME_LOWER";
    if (v != "NOTSET" && v != "VALID" && !(same && op == "Conv")) return "attribute 'auto_pad' = '" + v + "' is not supported";
  }
  if (op == "Conv" || op == "MaxPool" || op == "AveragePool") {
    const auto k = ints_attr("kernel_shape");
    if (find_attr(p, "kernel_shape") && k.size() != 2) return "attribute 'kernel_shape' = " + ints_text(k) + ": only 2-D windows are supported";
    for (int64_t x : k) {
      if (x <= 0) return "attribute 'kernel_shape' = " + ints_text(k) + " has a non-positive extent";
    }
    const auto strides = ints_attr("strides");
    if (!strides.empty() && (strides.size() != 2 || strides[0] <= 0)) return "attribute 'strides' = " + ints_text(strides) + " is not 2 positive values";
    if (op == "Conv" && !all_equal(strides)) return "attribute 'strides' = " + ints_text(strides) + ": tunefarm's conv2d takes one stride for both axes";
    const auto dil = ints_attr("dilations");
    if (!dil.empty() && (dil.size() != 2 || dil[0] <= 0 || !all_equal(dil))) return "attribute 'dilations' = " + ints_text(dil) + ": one positive dilation for both axes is supported";
    if (op == "MaxPool" && !dil.empty() && dil[0] != 1) return "attribute 'dilations' = " + ints_text(dil) + ": dilated pooling is not supported";
    const auto pads = ints_attr("pads");
    if (!pads.empty() && pads.size() != 4) return "attribute 'pads' = " + ints_text(pads) + " must have 4 values";
    for (int64_t x : pads) {
      if (x < 0) return "attribute 'pads' = " + ints_text(pads) + " has a negative pad";
    }
    if (op != "Conv" && !find_attr(p, "kernel_shape")) return "attribute 'kernel_shape' is missing";
  }
  if (op == "MaxPool" && int_attr("storage_order").value_or(0) != 0) return "attribute 'storage_order' = 1 is not supported";
  if (op == "MaxPool" && p.output_size() > 1 && !p.output(1).empty()) return "output 'Indices' is not supported";
  if (op == "Gemm") {
    if (int_attr("transA").value_or(0) != 0) return "attribute 'transA' = 1 is not supported";
    for (const char* name : {"alpha", "beta"}) {
      if (const auto* a = find_attr(p, name); a && a->f() != 1.0f) return std::string("attribute '") + name + "' = " + std::to_string(a->f()) + " is not supported (only 1)";
    }
  }
  if (op == "BatchNormalization") {
    if (int_attr("training_mode").value_or(0) != 0) return "attribute 'training_mode' = 1 is not supported (inference only)";
    if (p.output_size() > 1) return "running mean/variance outputs are not supported (inference only)";
  }
  if (op == "LayerNormalization") {
    for (int i = 1; i < p.output_size(); ++i) {
      if (!p.output(i).empty()) return "output " + std::to_string(i) + " (Mean / InvStdDev) is not supported";
    }
  }
  if (op == "Dropout" && (p.output_size() > 1 || p.input_size() > 2)) return "the mask output and training_mode are not supported (inference only)";
  if (op == "Cast") {
    const int64_t to = int_attr("to").value_or(0);
    if (to != onnx::TensorProto::FLOAT && to != onnx::TensorProto::INT64) {
      return "attribute 'to' = " + std::string(onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(to))) + " is not supported (float32, int64)";
    }
  }
  if (op == "Constant" && !find_attr(p, "value") && !find_attr(p, "value_float") && !find_attr(p, "value_floats") &&
      !find_attr(p, "value_int") && !find_attr(p, "value_ints")) {
    return "has no value attribute the importer reads (value, value_float(s), value_int(s))";
  }
  return std::nullopt;
}

Attribute convert_attribute(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::INT: return a.i();
    case onnx::AttributeProto::FLOAT: return static_cast<double>(a.f());
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    default: break;
  }
  return std::string();  // tensor attributes: Constant's value, read by the importer
}

// Conv and pooling with every default written out: strides, dilations, pads (top, left, bottom,
// right), group, kernel_shape.
void normalize_window(Graph& g, Node& n) {
  const Value& x = g.input_of(n, 0);
  if (x.shape.size() != 4) throw CompileError(n.describe() + ": input '" + x.name + "' has shape " + shape_str(x.shape) + "; only NCHW (rank 4) is supported");
  if (n.op == "Conv") {
    if (!g.input_present(n, 1)) throw CompileError(n.describe() + ": the weight (input 1) is missing");
    const Value& w = g.input_of(n, 1);
    if (w.shape.size() != 4) throw CompileError(n.describe() + ": weight '" + w.name + "' has shape " + shape_str(w.shape) + "; only 2-D convolutions are supported");
    const std::vector<int64_t> k = {w.shape[2], w.shape[3]};
    if (n.has("kernel_shape") && n.attr_ints("kernel_shape", {}) != k) {
      throw CompileError(n.describe() + ": attribute 'kernel_shape' = " + ints_text(n.attr_ints("kernel_shape", {})) + " differs from the weight " + shape_str(w.shape));
    }
    n.attrs["kernel_shape"] = k;
    n.attrs["group"] = n.attr_int("group", 1);
  }
  n.attrs["strides"] = n.attr_ints("strides", {1, 1});
  n.attrs["dilations"] = n.attr_ints("dilations", {1, 1});
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  n.attrs.erase("auto_pad");
  if (auto_pad == "VALID") {
    n.attrs["pads"] = std::vector<int64_t>{0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", {});
    std::vector<int64_t> pads(4);
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t in = x.shape[2 + axis], out = (in + s[axis] - 1) / s[axis];
      const int64_t total = std::max<int64_t>(0, (out - 1) * s[axis] + d[axis] * (k[axis] - 1) + 1 - in);
      const int64_t small = total / 2, large = total - small;
      pads[axis] = auto_pad == "SAME_UPPER" ? small : large;
      pads[axis + 2] = auto_pad == "SAME_UPPER" ? large : small;
    }
    n.attrs["pads"] = pads;
  } else {
    n.attrs["pads"] = n.attr_ints("pads", {0, 0, 0, 0});
  }
}

// Opset 13 moved Unsqueeze's and Squeeze's axes from an attribute to an input.
void axes_input_to_attribute(Graph& g, Node& n) {
  if (!g.input_present(n, 1)) return;
  const Tensor* axes = g.constant(n.inputs[1]);
  if (!axes || axes->dtype != DType::Int64) {
    throw CompileError(n.describe() + ": input 'axes' must be an int64 constant (static shapes)");
  }
  n.attrs["axes"] = axes->i64;
  n.inputs.resize(1);
}

}  // namespace

std::string where(const std::string& node, const std::string& op, int64_t opset) {
  return "node '" + node + "' (" + op + ", opset " + std::to_string(opset) + ")";
}

std::optional<std::string> refuse_node(const onnx::NodeProto& p, int64_t opset) {
  if (!p.domain().empty() && p.domain() != "ai.onnx") return "domain '" + p.domain() + "' is not supported (only the default ONNX domain)";
  const auto& ops = supported_ops();
  auto it = ops.find(p.op_type());
  if (it == ops.end()) return "op " + p.op_type() + " is not supported";
  if (opset < it->second.since) return "op " + p.op_type() + " needs opset " + std::to_string(it->second.since) + " or later";
  if (p.output_size() == 0) return "has no outputs";
  for (const auto& a : p.attribute()) {
    if (!it->second.attributes.count(a.name())) return "attribute '" + a.name() + "' is not supported";
  }
  return refuse_attribute_value(p);
}

Node convert_node(const onnx::NodeProto& p, const std::string& name) {
  Node n;
  n.name = name;
  n.op = p.op_type() == "Dropout" ? "Identity" : p.op_type();
  n.inputs.assign(p.input().begin(), p.input().end());
  if (p.op_type() == "Dropout") n.inputs.resize(1);
  n.outputs.assign(p.output().begin(), p.output().end());
  while (n.outputs.size() > 1 && n.outputs.back().empty()) n.outputs.pop_back();
  for (const auto& a : p.attribute()) {
    if (a.name() == "to") {
      n.attrs["to"] = std::string(a.i() == onnx::TensorProto::INT64 ? "int64" : "float32");
    } else {
      n.attrs[a.name()] = convert_attribute(a);
    }
  }
  return n;
}

void normalize_node(Graph& g, Node& n, int64_t opset) {
  if (n.op == "Conv" || n.op == "MaxPool" || n.op == "AveragePool") normalize_window(g, n);
  if ((n.op == "Unsqueeze" || n.op == "Squeeze") && opset >= 13) axes_input_to_attribute(g, n);
  if (n.op == "Softmax") {
    const int64_t rank = static_cast<int64_t>(g.input_of(n, 0).shape.size());
    const int64_t axis = normalize_axis(n.attr_int("axis", opset < 13 ? 1 : -1), rank, n, "axis");
    // Before opset 13 Softmax flattened the axes from `axis` on into one; that is softmax over the
    // last axis only when `axis` is the last one.
    if (opset < 13 && axis != rank - 1) {
      throw CompileError(n.describe() + ": attribute 'axis' = " + std::to_string(axis) + " at opset " + std::to_string(opset) +
                         " (softmax over the flattened trailing axes) is not supported; only the last axis");
    }
    n.attrs["axis"] = axis;
  }
}

}  // namespace tf::graph::onnx_import

#include "graph/onnx_nodes.h"

#include <algorithm>

#include "compiler/error.h"

namespace tf::graph::onnx_import {
namespace {

Attribute convert_attribute(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::INT: return a.i();
    case onnx::AttributeProto::FLOAT: return static_cast<double>(a.f());
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    // The entry reads it with import_onnx_tensor (ConstantOfShape's value); Constant's is read by
    // the importer.
    case onnx::AttributeProto::TENSOR: return a.t().SerializeAsString();
    default: break;
  }
  return std::string();
}

}  // namespace

std::string where(const std::string& node, const std::string& op, int64_t opset) {
  return "node '" + node + "' (" + op + ", opset " + std::to_string(opset) + ")";
}

Node convert_node(const onnx::NodeProto& p, const std::string& name) {
  Node n;
  n.name = name;
  n.op = p.op_type();
  n.inputs.assign(p.input().begin(), p.input().end());
  n.outputs.assign(p.output().begin(), p.output().end());
  while (n.outputs.size() > 1 && n.outputs.back().empty()) n.outputs.pop_back();
  for (const auto& a : p.attribute()) n.attrs[a.name()] = convert_attribute(a);
  return n;
}

std::optional<std::string> refuse_node(const onnx::NodeProto& p, const Node& n, int64_t opset, OpVersion* version) {
  if (!p.domain().empty() && p.domain() != "ai.onnx")
    return "domain '" + p.domain() + "' is not supported (only the default ONNX domain)";
  std::string why;
  const OpDef* def = find_op_def(p.op_type(), opset, version, &why);
  if (!def) return why;
  if (p.output_size() == 0) return "has no outputs";
  for (const auto& a : p.attribute()) {
    if (std::find(def->attributes.begin(), def->attributes.end(), a.name()) == def->attributes.end())
      return "attribute '" + a.name() + "' is not supported";
  }
  try {
    return def->check ? def->check(n, *version) : std::nullopt;
  } catch (const CompileError& e) {
    return std::string(e.what());  // an attribute of the wrong kind
  }
}

std::vector<Node> normalize_node(Graph& g, Node n, const OpVersion& version) {
  const OpDef* def = find_op_def(n.op);
  if (!def || !def->normalize) return {std::move(n)};
  return def->normalize(g, std::move(n), version);
}

}  // namespace tf::graph::onnx_import

// ONNX nodes into graph nodes through the op registry (graph/ops/registry.h): the refusals that
// need no shapes, the conversion of attributes, and the normalization into each op's canonical
// form. Internal to graph/onnx_import.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

// onnx_pb.h defines ONNX_API and includes onnx-ml.pb.h (ONNX_ML is set by graph/CMakeLists.txt).
#include <onnx/onnx_pb.h>

#include "graph/graph.h"
#include "graph/ops/registry.h"

namespace tf::graph::onnx_import {

// "node 'conv1' (Conv, opset 13)": the prefix of every refusal about a node.
std::string where(const std::string& node, const std::string& op, int64_t opset);

// The node with its attributes converted (tensor-valued attributes excepted: Constant is read by the
// importer).
Node convert_node(const onnx::NodeProto& p, const std::string& name);

// Why the node cannot be imported at this opset (op and version, domain, attribute name or value,
// output), or nullopt; sets *version when it can.
std::optional<std::string> refuse_node(const onnx::NodeProto& p, const Node& n, int64_t opset, OpVersion* version);

// The nodes in canonical form that replace `n`, now that its inputs' shapes are known. Throws
// CompileError naming node and attribute.
std::vector<Node> normalize_node(Graph& g, Node n, const OpVersion& version);

}  // namespace tf::graph::onnx_import

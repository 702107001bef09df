// The ONNX operators the importer takes, one check and one normalization each (onnx_nodes.cc):
// internal to graph/onnx_import.cc and graph/onnx_summary.cc.
#pragma once

#include <optional>
#include <string>

// onnx_pb.h defines ONNX_API and includes onnx-ml.pb.h (ONNX_ML is set by graph/CMakeLists.txt).
#include <onnx/onnx_pb.h>

#include "graph/graph.h"

namespace tf::graph::onnx_import {

// "node 'conv1' (Conv, opset 13)": the prefix of every refusal about a node.
std::string where(const std::string& node, const std::string& op, int64_t opset);

// Why the node cannot be imported at this opset (op, domain, attribute name or value, output
// count), or nullopt. Checks what needs no shapes.
std::optional<std::string> refuse_node(const onnx::NodeProto& p, int64_t opset);

// The node with its attributes converted (tensor-valued attributes excepted: Constant is read by the
// importer). refuse_node must have passed.
Node convert_node(const onnx::NodeProto& p, const std::string& name);

// Brings a node into the form the rest of graph/ reads, now that its inputs' shapes are known:
// defaults written out (Conv/pool strides, pads, dilations, kernel_shape, group), SAME padding
// resolved, axes given as inputs (Unsqueeze/Squeeze at opset 13+) turned into attributes, Softmax
// of opsets 11-12 checked to mean the same as at 13. Throws CompileError naming node and attribute.
void normalize_node(Graph& g, Node& n, int64_t opset);

}  // namespace tf::graph::onnx_import

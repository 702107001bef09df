// One ONNX node test (libonnx-testdata) read for checking a compiler op directly: the node with
// its attributes, every input by position (integer ones too, Constant nodes' outputs included) and
// the expected outputs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/onnx_import.h"
#include "tests/onnx_node_data.h"

namespace tf::testing_support {

struct NodeCase {
  onnx::NodeProto node;
  std::vector<std::optional<graph::Tensor>> inputs;  // by the node's input position; empty: absent
  std::vector<graph::Tensor> outputs;
  int64_t opset = 0;  // of the default domain

  // Input k, or nullptr when absent.
  const graph::Tensor* input(size_t k) const { return k < inputs.size() && inputs[k] ? &*inputs[k] : nullptr; }

  const onnx::AttributeProto* attr(const std::string& name) const {
    for (const auto& a : node.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  int64_t attr_int(const std::string& name, int64_t def) const { return attr(name) ? attr(name)->i() : def; }
  float attr_float(const std::string& name, float def) const { return attr(name) ? attr(name)->f() : def; }
  std::string attr_string(const std::string& name, const std::string& def) const {
    return attr(name) ? attr(name)->s() : def;
  }
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> def = {}) const {
    return attr(name) ? std::vector<int64_t>(attr(name)->ints().begin(), attr(name)->ints().end()) : def;
  }
  // An integer input's values (axes, pads, indices), or nothing when absent.
  std::optional<std::vector<int64_t>> ints(size_t k) const {
    if (k >= inputs.size() || !inputs[k]) return std::nullopt;
    std::vector<int64_t> v;
    for (int64_t i = 0; i < inputs[k]->size(); ++i) v.push_back(static_cast<int64_t>(inputs[k]->at(i)));
    return v;
  }
  std::vector<float> floats(size_t k) const {
    std::vector<float> v;
    for (int64_t i = 0; i < inputs.at(k)->size(); ++i) v.push_back(static_cast<float>(inputs[k]->at(i)));
    return v;
  }
  const graph::Shape& shape(size_t k) const { return inputs.at(k)->shape; }
};

// The test's first node of `op_type` (empty: its first node).
inline NodeCase load_node_case(const std::string& name, const std::string& op_type = "") {
  const std::string dir = graph::testing::kNodeTestsDir + name + "/";
  onnx::ModelProto m;
  if (!m.ParseFromString(graph::testing::read_bytes(dir + "model.onnx")))
    throw std::runtime_error(name + ": model.onnx does not parse");
  NodeCase c;
  for (const auto& o : m.opset_import()) {
    if (o.domain().empty()) c.opset = o.version();
  }
  std::map<std::string, graph::Tensor> by_name;
  for (int i = 0; i < m.graph().input_size(); ++i) {
    const std::string bytes = graph::testing::read_bytes(dir + "test_data_set_0/input_" + std::to_string(i) + ".pb");
    by_name[m.graph().input(i).name()] = graph::import_onnx_tensor(bytes, name + " input " + std::to_string(i));
  }
  bool found = false;
  for (const auto& node : m.graph().node()) {
    if (node.op_type() == "Constant") {
      for (const auto& a : node.attribute()) {
        if (a.name() == "value")
          by_name[node.output(0)] = graph::import_onnx_tensor(a.t().SerializeAsString(), name + " " + node.output(0));
      }
    }
    if (!found && (op_type.empty() || node.op_type() == op_type)) c.node = node, found = true;
  }
  if (!found) throw std::runtime_error(name + ": no node of op " + op_type);
  for (const auto& in : c.node.input()) {
    auto it = by_name.find(in);
    c.inputs.push_back(it == by_name.end() ? std::nullopt : std::optional<graph::Tensor>(it->second));
  }
  for (int i = 0; i < m.graph().output_size(); ++i) {
    const std::string bytes = graph::testing::read_bytes(dir + "test_data_set_0/output_" + std::to_string(i) + ".pb");
    c.outputs.push_back(graph::import_onnx_tensor(bytes, name + " output " + std::to_string(i)));
  }
  return c;
}

// The product of extents [from, to).
inline int64_t extent_product(const graph::Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t k = from; k < to && k < s.size(); ++k) p *= s[k];
  return p;
}

}  // namespace tf::testing_support

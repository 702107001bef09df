// ONNX's backend node tests as Debian's libonnx-testdata ships them: one folder per test with a
// model.onnx and test_data_set_0/{input,output}_N.pb. Read for the tests that check tunefarm's
// importer (onnx_node_test.cc, through the evaluator) and its compiled kernels
// (onnx_conformance_test.cc, through build_model and the executor).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "graph/onnx_import.h"
#include "tests/graph_evaluator.h"
#include "tests/onnx_model_builder.h"

namespace tf::graph::testing {

// The suites libonnx-testdata ships: "node" (one op each), and the models exported from PyTorch
// ("pytorch-converted", "pytorch-operator") and small hand-written ones ("simple").
inline const std::string kTestDataDir = "/usr/share/libonnx-testdata/data/";
inline const std::string kNodeTestsDir = kTestDataDir + "node/";
inline std::string suite_dir(const std::string& suite) { return kTestDataDir + suite + "/"; }

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// What a node test's model.onnx holds, read without importing it (all empty when it does not parse).
struct NodeTestSummary {
  std::vector<std::string> op_types;     // of its nodes, in order
  std::vector<std::string> value_names;  // its graph's inputs and outputs
};

inline NodeTestSummary summarize_node_test(const std::string& name, const std::string& suite = "node") {
  onnx::ModelProto m;
  NodeTestSummary s;
  if (!m.ParseFromString(read_bytes(suite_dir(suite) + name + "/model.onnx"))) return s;
  for (const auto& node : m.graph().node()) s.op_types.push_back(node.op_type());
  for (const auto& v : m.graph().input()) s.value_names.push_back(v.name());
  for (const auto& v : m.graph().output()) s.value_names.push_back(v.name());
  return s;
}

struct NodeTest {
  std::string model;                                          // bytes, integer inputs turned into initializers
  Values inputs;                                              // the float inputs, by name
  std::vector<std::pair<std::string, std::string>> expected;  // output name, TensorProto bytes
};

// Integer inputs (shapes, axes, indices) become initializers: tunefarm plans static shapes, so what
// a graph computes its shapes from must be known when it is imported. With `constant_weights`, every
// float input after the first becomes one too: weights, biases, bounds and exponents, as a model
// holds them (tunefarm's dense, batch norm, Pow and Clip take those only as constants). Throws
// CompileError naming the test when an input's dtype is one tunefarm does not take.
inline NodeTest load_node_test(const std::string& name, bool constant_weights = false,
                               const std::string& suite = "node") {
  const std::string dir = suite_dir(suite) + name + "/";
  onnx::ModelProto m;
  if (!m.ParseFromString(read_bytes(dir + "model.onnx")))
    throw std::runtime_error(name + ": model.onnx does not parse");
  NodeTest t;
  auto* graph = m.mutable_graph();
  std::vector<onnx::ValueInfoProto> runtime_inputs;
  // Models of IR version < 4 (PyTorch's older exports) list their initializers among the inputs
  // too: those are weights, not data the test feeds; input_N.pb numbers only the others.
  std::set<std::string> initializers;
  for (const auto& init : graph->initializer()) initializers.insert(init.name());
  int fed = 0;
  for (int i = 0; i < graph->input_size(); ++i) {
    if (initializers.count(graph->input(i).name())) continue;
    const auto& type = graph->input(i).type();
    if (!type.has_tensor_type()) {  // the data file holds a SequenceProto or an OptionalProto
      const std::string kind = type.has_sequence_type()   ? "a sequence"
                               : type.has_optional_type() ? "an optional"
                                                          : "not a tensor";
      throw CompileError(name + ": input '" + graph->input(i).name() + "' is " + kind +
                         "; a compiled model's inputs are tensors");
    }
    const std::string bytes = read_bytes(dir + "test_data_set_0/input_" + std::to_string(fed++) + ".pb");
    onnx::TensorProto proto;
    proto.ParseFromString(bytes);
    proto.set_name(graph->input(i).name());
    const bool integer = proto.data_type() == onnx::TensorProto::INT64 || proto.data_type() == onnx::TensorProto::INT32;
    if (integer || (constant_weights && !runtime_inputs.empty())) {
      *graph->add_initializer() = proto;
    } else {
      runtime_inputs.push_back(graph->input(i));
      t.inputs[graph->input(i).name()] = import_onnx_tensor(bytes, name + " input " + std::to_string(i));
    }
  }
  graph->clear_input();
  for (auto& v : runtime_inputs) *graph->add_input() = v;
  for (int i = 0; i < graph->output_size(); ++i) {
    t.expected.emplace_back(graph->output(i).name(),
                            read_bytes(dir + "test_data_set_0/output_" + std::to_string(i) + ".pb"));
  }
  t.model = m.SerializeAsString();
  return t;
}

// Every test's name in the suite ("test_add", ...), sorted; empty when libonnx-testdata is not installed.
inline std::vector<std::string> list_node_tests(const std::string& suite = "node") {
  std::vector<std::string> names;
  if (!std::filesystem::exists(suite_dir(suite))) return names;
  for (const auto& entry : std::filesystem::directory_iterator(suite_dir(suite))) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("test_", 0) == 0 && std::filesystem::exists(entry.path() / "model.onnx")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tf::graph::testing

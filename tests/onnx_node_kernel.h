// Runs one compiler op's kernel on the inputs of an ONNX backend node test, for the tests that
// check an operator against ONNX's own expected outputs (conv2d_transpose, resize2d): the node's
// attributes and input tensors as the test ships them, the kernel's output to compare.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli/kernel_runner.h"
#include "compiler/compiler.h"
#include "graph/onnx_import.h"
#include "tests/onnx_node_data.h"

namespace tf::testing_support {

struct OnnxNodeCase {
  onnx::NodeProto node;                        // the first node of op_type
  std::map<std::string, graph::Tensor> values;  // graph inputs and Constant outputs, by name
  graph::Tensor expected;                       // output_0.pb
  int64_t opset = 0;

  // The node's input `i` (nullptr when absent or named "").
  const graph::Tensor* input(int i) const {
    if (i >= node.input_size() || node.input(i).empty()) return nullptr;
    auto it = values.find(node.input(i));
    return it == values.end() ? nullptr : &it->second;
  }
  const onnx::AttributeProto* attribute(const std::string& name) const {
    for (const auto& a : node.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  std::vector<int64_t> ints(const std::string& name, std::vector<int64_t> fallback) const {
    const auto* a = attribute(name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
  }
  std::string str(const std::string& name, const std::string& fallback) const {
    const auto* a = attribute(name);
    return a ? a->s() : fallback;
  }
  float f(const std::string& name, float fallback) const {
    const auto* a = attribute(name);
    return a ? a->f() : fallback;
  }
};

inline OnnxNodeCase load_onnx_node_case(const std::string& test, const std::string& op_type) {
  const std::string dir = graph::testing::kNodeTestsDir + test + "/";
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(graph::testing::read_bytes(dir + "model.onnx"))) << test;
  OnnxNodeCase c;
  for (const auto& o : m.opset_import()) {
    if (o.domain().empty()) c.opset = o.version();
  }
  for (int i = 0; i < m.graph().input_size(); ++i) {
    c.values[m.graph().input(i).name()] = graph::import_onnx_tensor(
        graph::testing::read_bytes(dir + "test_data_set_0/input_" + std::to_string(i) + ".pb"), test);
  }
  for (const auto& node : m.graph().node()) {
    if (node.op_type() == "Constant") {
      for (const auto& a : node.attribute()) {
        if (a.name() == "value") c.values[node.output(0)] = graph::import_onnx_tensor(a.t().SerializeAsString(), test);
      }
    }
    if (node.op_type() == op_type && c.node.op_type().empty()) c.node = node;
  }
  c.expected = graph::import_onnx_tensor(graph::testing::read_bytes(dir + "test_data_set_0/output_0.pb"), test);
  return c;
}

// The op's default-config kernel on these inputs (in kernel argument order); its output.
inline std::vector<float> run_op_kernel(const std::string& op, const std::vector<int64_t>& shape,
                                        const std::vector<std::vector<float>>& inputs) {
  compiler::Task task({op, shape}, codegen::host_target());
  auto kernel = task.build_jit(task.space().default_config());
  std::vector<cli::HostTensor> tensors;
  const auto in_shapes = task.op().input_shapes(shape);
  EXPECT_EQ(in_shapes.size(), inputs.size()) << op;
  for (size_t i = 0; i < in_shapes.size() && i < inputs.size(); ++i) {
    tensors.emplace_back(in_shapes[i]);
    EXPECT_EQ(static_cast<size_t>(tensors.back().size()), inputs[i].size()) << op << " input " << i;
    std::copy(inputs[i].begin(), inputs[i].begin() + std::min<size_t>(inputs[i].size(), tensors.back().size()),
              tensors.back().data());
  }
  tensors.emplace_back(task.op().output_shape(shape));
  std::vector<TFBuffer> args;
  for (const auto& t : tensors) args.push_back(t.buffer());
  EXPECT_EQ(kernel->entry()(args.data(), static_cast<int32_t>(args.size())), TF_OK) << op;
  const auto& out = tensors.back();
  return std::vector<float>(out.data(), out.data() + out.size());
}

// max |a - b| / max |b| within `bound`, element counts equal.
inline void expect_close(const std::vector<float>& got, const std::vector<float>& want, double bound, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0, scale = 1e-30;
  size_t at = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::fabs(want[i])));
    const double d = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(d <= worst)) worst = d, at = i;
  }
  EXPECT_LE(worst / scale, bound) << what << ": worst at flat index " << at << ": got " << got[at] << ", want " << want[at];
}

}  // namespace tf::testing_support

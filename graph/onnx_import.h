// ONNX models (opsets 7-21, the default domain) into the graph IR, op by op through the op
// registry (graph/ops/registry.h). Everything refused - an op, an
// attribute value, a dtype, a symbolic extent other than the batch - is a tf::CompileError naming
// the file, node, op, attribute and opset; a truncated or garbage file is an error, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tf::graph {

inline constexpr int64_t kMinOpset = 7;
inline constexpr int64_t kMaxOpset = 21;

struct ImportOptions {
  // A symbolic (or unknown) first extent of a model input becomes this: shapes are static, so a
  // model is imported, planned and tuned for one batch size.
  int64_t batch = 1;
};

// What a model file declares, read without building the graph: for `tunefarm model inspect`, which
// lists unsupported nodes instead of stopping at the first.
struct OnnxSummary {
  struct Tensor {
    std::string name;
    std::string dtype;
    std::string shape;  // "[N,3,224,224]": symbolic extents by name
  };
  int64_t opset = 0;
  std::string producer;
  std::vector<Tensor> inputs, outputs;
  std::map<std::string, int> ops;        // node count by op type
  std::vector<std::string> unsupported;  // one line per refused node: node, op, attribute, opset
};

// Reads and checks the file; throws CompileError on a file that is not an ONNX model or whose opset
// is outside kMinOpset..kMaxOpset.
OnnxSummary summarize_onnx_file(const std::string& path);

// The graph, shapes inferred, constant shape computations folded (Shape, Gather, Unsqueeze, Cast,
// Concat on constants), Constant and Identity nodes gone. Throws CompileError listing every
// unsupported node, or naming the first node whose shapes do not work out.
Graph import_onnx_file(const std::string& path, const ImportOptions& options = {});
Graph import_onnx_bytes(const std::string& bytes, const std::string& what, const ImportOptions& options = {});

// A serialized TensorProto (float32, int64 or int32 read as int64), as ONNX's test data stores
// inputs and expected outputs. Throws CompileError naming `what`.
Tensor import_onnx_tensor(const std::string& bytes, const std::string& what);

}  // namespace tf::graph

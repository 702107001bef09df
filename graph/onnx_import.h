// ONNX models (opsets 1-21, the default domain) into the graph IR, op by op through the op
// registry (graph/ops/registry.h). Everything refused - an op, an attribute value, a dtype, a
// symbolic extent left unbound - is a tf::CompileError naming the file, node, op, attribute and
// opset; a truncated or garbage file is an error, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tf::graph {

// A model of opset N means each op's version at N (ONNX's schema registry); the op's registry entry
// says which versions it implements. From kEveryVersionFromOpset on, every entry implements every
// version of its op; below it some ops' first versions (consumed_inputs, BatchNormalization's
// is_test, Add's broadcast attribute) are refused by version, so old models whose ops did not
// change import, and those whose ops did are refused naming the op.
inline constexpr int64_t kMinOpset = 1;
inline constexpr int64_t kEveryVersionFromOpset = 7;
inline constexpr int64_t kMaxOpset = 21;

// Shapes are static: a model is imported, planned and tuned for one shape of each input, so every
// symbolic extent of an input is bound here (the CLI's --input-shape and --batch).
struct ImportOptions {
  // Full shapes by input name. Each must name an input, have its rank and agree with every static
  // extent it declares. A symbolic extent's name (dim_param) bound here binds the same name in the
  // other inputs too, as ONNX means it.
  std::map<std::string, Shape> input_shapes;
  // Extent 0 of every input not in input_shapes, when symbolic and its name is not bound there;
  // 1 when unset. Set, it must agree with a symbolic extent 0 given in input_shapes.
  std::optional<int64_t> batch;
};

// An extent a model input declares symbolic: its index and name (dim_param; "" when unnamed).
struct SymbolicExtent {
  int index = 0;
  std::string name;
};

// What a model file declares, read without building the graph: for `tunefarm model inspect`, which
// lists unsupported nodes instead of stopping at the first.
struct OnnxSummary {
  struct Tensor {
    std::string name;
    std::string dtype;
    std::string shape;  // "[N,3,224,224]": symbolic extents by name
    std::vector<SymbolicExtent> symbolic;
    Shape bound;  // inputs: the shape the options bind (empty when binding failed)
  };
  int64_t opset = 0;
  std::string producer;
  std::vector<Tensor> inputs, outputs;
  std::map<std::string, int> ops;        // node count by op type
  std::vector<std::string> unsupported;  // one line per refused node: node, op, attribute, opset
  std::string binding_error;             // the inputs' extents left symbolic; "" when all are bound
};

// Reads and checks the file; throws CompileError on a file that is not an ONNX model or whose opset
// is outside kMinOpset..kMaxOpset, and when `options` do not fit the model's inputs (a shape for an
// unknown input, of another rank, disagreeing with a static extent). Extents `options` leave
// symbolic are binding_error.
OnnxSummary summarize_onnx_file(const std::string& path, const ImportOptions& options = {});

// The graph, shapes inferred, constant shape computations folded (Shape, Gather, Unsqueeze, Cast,
// Concat on constants), Constant and Identity nodes gone. Throws CompileError listing every
// unsupported node, or naming the first node whose shapes do not work out.
Graph import_onnx_file(const std::string& path, const ImportOptions& options = {});
Graph import_onnx_bytes(const std::string& bytes, const std::string& what, const ImportOptions& options = {});

// A serialized TensorProto (float32, int64 or int32 read as int64), as ONNX's test data stores
// inputs and expected outputs. Throws CompileError naming `what`.
Tensor import_onnx_tensor(const std::string& bytes, const std::string& what);

}  // namespace tf::graph

// A model's inputs with their symbolic extents bound (ImportOptions: --input-shape, --batch):
// internal to graph/onnx_import.cc.
#pragma once

#include <string>
#include <vector>

// onnx_pb.h defines ONNX_API and includes onnx-ml.pb.h (ONNX_ML is set by graph/CMakeLists.txt).
#include <onnx/onnx_pb.h>

#include "graph/graph.h"
#include "graph/onnx_import.h"

namespace tf::graph::onnx_import {

// "[N,3,H,W]": static extents by value, symbolic ones by name ("?" when unnamed); "?" without a shape.
std::string dims_text(const onnx::ValueInfoProto& v);

// The extents `v` declares symbolic (no value, or a value that is not positive), in order.
std::vector<SymbolicExtent> symbolic_extents(const onnx::ValueInfoProto& v);

struct BoundInput {
  const onnx::ValueInfoProto* info;
  Shape shape;
};

// Throws CompileError when `options` do not fit the model: a shape for an unknown input, of another
// rank or disagreeing with a static extent or with --batch; two bindings of one symbolic name that
// differ. Extents left symbolic are bind_inputs' to refuse.
void check_input_options(const onnx::GraphProto& graph, const ImportOptions& options, const std::string& what);

// The graph's inputs in order (initializers listed as inputs left out), each with every extent
// bound. Throws CompileError naming the input, the extent, the model's and the given value, and
// the flag that binds it: what check_input_options refuses, and an extent left symbolic.
std::vector<BoundInput> bind_inputs(const onnx::GraphProto& graph, const ImportOptions& options,
                                    const std::string& what);

}  // namespace tf::graph::onnx_import

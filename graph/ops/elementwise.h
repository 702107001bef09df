// What every elementwise op shares (graph/ops/unary.cc, binary.cc): numpy broadcasting of its
// inputs, its evaluation on constants, and its lowering as one elementwise kernel whose expression
// the ops of a chain (or the one node) build.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/ops/registry.h"

namespace tf::graph::elementwise {

// One output element from the inputs' elements at the same (broadcast) position.
using FloatFn = std::function<double(const std::vector<double>& args)>;
// The int64 evaluation (shape arithmetic); unset: int64 inputs are refused.
using IntFn = std::function<int64_t(const Node& n, const std::vector<int64_t>& args)>;

struct Spec {
  std::string name;
  std::vector<int> versions;
  size_t min_inputs = 1, max_inputs = 1;  // variadic ops: max_inputs large
  std::vector<double> defaults;           // the value of an absent optional input i (Clip's bounds)
  std::vector<std::string> input_names;   // ONNX's names of the inputs, where messages need them
  FloatFn f;
  IntFn i;
  std::function<ops::ElementwiseExprPtr(ElementwiseArgs& args, const Graph& scope, const Node& n)> expression;
  Epilogue epilogue = Epilogue::None;
};

// The entry of an elementwise op: shape by broadcasting, fold by `f`/`i`, lowering as a kernel,
// fusible into chains. Callers add attributes, check and normalize where the op has them.
OpDef make_op(const Spec& spec);

// A node of an elementwise op, or a fused_elementwise node, as one elementwise kernel call.
NodeLowering lower(const Graph& g, const Node& n);

// The broadcast output of `f` over the inputs (float32), or of `i` (int64 inputs).
Tensor evaluate(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape, const Spec& spec);

}  // namespace tf::graph::elementwise

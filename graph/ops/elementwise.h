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
// The exact evaluation when every input is an integer type (shape arithmetic); unset: `f` in double.
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
  // The output's dtype from the inputs' (absent ones read as float32); unset: input 0's.
  std::function<DType(const Node& n, const std::vector<DType>& inputs)> output_dtype;
  // Inputs whose dtype may differ from the others' (Where's condition, Pow's exponent); every other
  // present input must have one dtype, as ONNX's type constraint T says.
  std::vector<size_t> typed_apart;
  // Whether the kernel takes input i in dtype t; unset: float32 only.
  std::function<bool(size_t i, DType t)> kernel_takes;
};

// The entry of an elementwise op: shape by broadcasting, fold by `f`/`i`, lowering as a kernel,
// fusible into chains. Callers add attributes, check and normalize where the op has them.
OpDef make_op(const Spec& spec);

// A node of an elementwise op, or a fused_elementwise node, as one elementwise kernel call.
NodeLowering lower(const Graph& g, const Node& n);

// The broadcast output of `i` when every input is an integer type and the op has it (exact), else
// of `f` in double; stored as `out_dtype` (a bool is r != 0).
Tensor evaluate(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape, DType out_dtype,
                const Spec& spec);

}  // namespace tf::graph::elementwise

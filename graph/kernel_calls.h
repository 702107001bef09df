// How each node of a planned graph runs: as a call of one compiler/ops kernel on its values, or as
// an alias (Reshape, Flatten, Squeeze, Unsqueeze, Identity: the output is the input's bytes under
// another shape, no kernel at all). Nothing runs as a hand-written loop.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/operator.h"
#include "graph/graph.h"

namespace tf::graph {

struct KernelCall {
  // A registry operator, or one the model built (a fused elementwise chain).
  std::shared_ptr<const ops::Operator> op;
  std::vector<int64_t> shape;     // the workload's extents
  std::vector<std::string> args;  // value names: the kernel's inputs in order, then its output
  // The shape the kernel sees each argument as (op.input_shapes, then output_shape): a value
  // reshaped in place where the kernel's rank differs from the graph's.
  std::vector<std::vector<int64_t>> arg_shapes;
  // Values the call needs that the graph does not hold (a LayerNormalization without a bias gets
  // a zero one): constants to add beside the graph's, by name.
  std::vector<std::pair<std::string, Tensor>> extra_constants;

  ops::Workload workload() const { return {op->name(), shape}; }
};

struct NodeLowering {
  std::optional<KernelCall> call;  // unset: an alias
  std::string alias_of;            // the value whose bytes the output is, for an alias
};

// The node's op entry lowers it (graph/ops/registry.h). Throws CompileError naming the node, its op
// and what no kernel covers (an axis, an attribute).
NodeLowering lower_node(const Graph& g, const Node& n);

}  // namespace tf::graph

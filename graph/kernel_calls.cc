#include "graph/kernel_calls.h"

#include "compiler/error.h"
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"

namespace tf::graph {

NodeLowering lower_node(const Graph& g, const Node& n) {
  if (n.has("workload_shape")) {
    // Nodes plan_layouts made (blocked convolutions, layout transforms) carry their extents.
    return lowering::call(lowering::make_call(n, lowering::registry_op(n.op), n.attr_ints("workload_shape", {}),
                                              lowering::with_output(n.inputs, n)));
  }
  const OpDef* def = find_op_def(n.op);
  if (!def || !def->lower)
    throw CompileError(n.describe() + ": no kernel runs op " + n.op + " (the graph passes should have rewritten it)");
  return def->lower(g, n);
}

}  // namespace tf::graph

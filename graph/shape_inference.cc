#include "graph/shape_inference.h"

#include <algorithm>

#include "compiler/error.h"
#include "graph/ops/registry.h"

namespace tf::graph {
namespace {

[[noreturn]] void fail(const Node& n, const std::string& why) { throw CompileError(n.describe() + ": " + why); }

}  // namespace

int64_t window_output(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end,
                      bool ceil_mode) {
  if (stride <= 0) return -1;
  const int64_t span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const Node& n) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(n, "shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const Node& n, const std::string& attr) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1)) {
    fail(n, "attribute '" + attr + "' = " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return a;
}

void infer_node_shapes(Graph& g, const Node& n) {
  const OpDef* def = find_op_def(n.op);
  if (def && def->infer) {
    def->infer(g, n);
    return;
  }
  // Fused kernels write the shape of the output they replace; nothing to infer.
  for (const auto& out : n.outputs) {
    if (!g.has_value(out)) fail(n, "no shape rule for op " + n.op);
  }
}

void infer_shapes(Graph& g) {
  for (const Node& n : g.nodes) infer_node_shapes(g, n);
}

}  // namespace tf::graph

// MaxPool, AveragePool (2-D windows), GlobalAveragePool and GlobalMaxPool.
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/window.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using lowering::Named;
using rules::fail;

Shape pool_shape(const Graph& g, const Node& n) {
  const Value& x = rules::in(g, n, 0);
  rules::require_rank(n, x, 4, "input");
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (k.size() != 2) fail(n, "attribute 'kernel_shape' must have 2 extents");
  if (strides.size() != 2) fail(n, "attribute 'strides' must have 2 extents, got " + std::to_string(strides.size()));
  if (pads.size() != 4) fail(n, "attribute 'pads' must have 4 extents, got " + std::to_string(pads.size()));
  const bool ceil = n.attr_int("ceil_mode", 0) != 0;
  const int64_t oh = window_output(x.shape[2], k[0], strides[0], 1, pads[0], pads[2], ceil);
  const int64_t ow = window_output(x.shape[3], k[1], strides[1], 1, pads[1], pads[3], ceil);
  if (oh <= 0 || ow <= 0) fail(n, "the window is larger than the padded input " + shape_str(x.shape));
  return {x.shape[0], x.shape[1], oh, ow};
}

Named window_extents(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (n.attr_int("ceil_mode", 0) != 0) fail(n, "attribute 'ceil_mode' = 1 is not supported");
  if (strides[0] != strides[1]) fail(n, "attribute 'strides' = " + rules::ints_text(strides) + ": one stride for both axes is supported");
  return {{"n", x[0]}, {"c", x[1]}, {"h", x[2]}, {"w", x[3]}, {"r", k.at(0)}, {"s", k.at(1)}, {"stride", strides[0]},
          {"pad_top", pads[0]}, {"pad_left", pads[1]}, {"pad_bottom", pads[2]}, {"pad_right", pads[3]}};
}

OpDef window_pool(const std::string& name, std::vector<int> versions, std::vector<std::string> attributes) {
  OpDef d;
  d.name = name;
  d.versions = std::move(versions);
  d.attributes = std::move(attributes);
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    window::normalize(g, n);
    return std::vector<Node>{std::move(n)};
  };
  d.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, DType::Float32, pool_shape(g, n)); };
  return d;
}

OpDef max_pool() {
  OpDef d = window_pool("MaxPool", {1, 8, 10, 11, 12}, {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (auto why = window::check(n)) return why;
    if (n.attr_int("storage_order", 0) != 0) return "attribute 'storage_order' = 1 is not supported";
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "output 'Indices' is not supported";
    return std::nullopt;
  };
  d.lower = [](const Graph& g, const Node& n) {
    return lowering::call(lowering::named_call(n, "max_pool2d", window_extents(g, n), lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

OpDef average_pool() {
  OpDef d = window_pool("AveragePool", {7, 10, 11, 19}, {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"});
  d.check = [](const Node& n, const OpVersion&) { return window::check(n); };
  d.lower = [](const Graph& g, const Node& n) {
    Named e = window_extents(g, n);
    e["count_include_pad"] = n.attr_int("count_include_pad", 0);
    return lowering::call(lowering::named_call(n, "avg_pool2d", e, lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

// GlobalAveragePool / GlobalMaxPool over every spatial axis of [N, C, D1, ...]: the kernel sees the
// spatial extents as [D1, D2 * ...] (contiguous, so a view), the output [N, C, 1, ...] as [N, C, 1, 1].
OpDef global_pool(const std::string& name, const std::string& kernel) {
  OpDef d;
  d.name = name;
  d.versions = {1};
  d.infer = [](Graph& g, const Node& n) {
    const Value& x = rules::in(g, n, 0);
    if (x.shape.size() < 3) fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; [N, C, D1, ...] (rank 3 or more) is required");
    Shape out(x.shape.size(), 1);
    out[0] = x.shape[0], out[1] = x.shape[1];
    rules::set_out(g, n, 0, DType::Float32, out);
  };
  d.lower = [kernel](const Graph& g, const Node& n) {
    const Shape& x = g.input_of(n, 0).shape;
    const Named e = {{"n", x[0]}, {"c", x[1]}, {"h", x[2]}, {"w", element_count(Shape(x.begin() + 3, x.end()))}};
    return lowering::call(lowering::named_call(n, kernel, e, lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

}  // namespace

void add_pool_ops(std::vector<OpDef>& ops) {
  ops.push_back(max_pool());
  ops.push_back(average_pool());
  ops.push_back(global_pool("GlobalAveragePool", "global_avg_pool2d"));
  ops.push_back(global_pool("GlobalMaxPool", "global_max_pool2d"));
}

}  // namespace tf::graph

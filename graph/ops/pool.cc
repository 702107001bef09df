// MaxPool, AveragePool (2-D windows, and 1-D as 2-D over a unit height; ceil_mode as extra padding
// at the end) and GlobalAveragePool.
#include <algorithm>

#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/window.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using lowering::Named;
using rules::fail;

// With ceil_mode a last window that starts in the end padding is dropped (ONNX's rule since 1.16,
// ONNX Runtime's and PyTorch's): its inputs are all padding.
int64_t pool_output(const Node& n, int64_t in, int64_t k, int64_t stride, int64_t pad_begin, int64_t pad_end) {
  const bool ceil = n.attr_int("ceil_mode", 0) != 0;
  int64_t out = window_output(in, k, stride, 1, pad_begin, pad_end, ceil);
  if (ceil && out > 1 && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

Shape pool_shape(const Graph& g, const Node& n) {
  const Value& x = rules::in(g, n, 0);
  rules::require_rank(n, x, 4, "input");
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (k.size() != 2) fail(n, "attribute 'kernel_shape' must have 2 extents");
  if (strides.size() != 2) fail(n, "attribute 'strides' must have 2 extents, got " + std::to_string(strides.size()));
  if (pads.size() != 4) fail(n, "attribute 'pads' must have 4 extents, got " + std::to_string(pads.size()));
  const int64_t oh = pool_output(n, x.shape[2], k[0], strides[0], pads[0], pads[2]);
  const int64_t ow = pool_output(n, x.shape[3], k[1], strides[1], pads[1], pads[3]);
  if (oh <= 0 || ow <= 0) fail(n, "the window is larger than the padded input " + shape_str(x.shape));
  return {x.shape[0], x.shape[1], oh, ow};
}

// The pool2d kernel's extents. ceil_mode's last partial window reads padding past the end: as much
// extra bottom and right padding as it needs, which max ignores and an average not counting
// padding leaves out of its count.
Named window_extents(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const Shape& y = g.output_of(n).shape;
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (strides[0] != strides[1]) fail(n, "attribute 'strides' = " + rules::ints_text(strides) + ": one stride for both axes is supported");
  const int64_t extra_bottom = std::max<int64_t>(0, (y[2] - 1) * strides[0] + k[0] - (x[2] + pads[0] + pads[2]));
  const int64_t extra_right = std::max<int64_t>(0, (y[3] - 1) * strides[1] + k[1] - (x[3] + pads[1] + pads[3]));
  if ((extra_bottom || extra_right) && n.attr_int("count_include_pad", 0) != 0) {
    fail(n, "attribute 'ceil_mode' = 1 with 'count_include_pad' = 1 is not supported (a window past the end counts only the explicit pads)");
  }
  return {{"n", x[0]}, {"c", x[1]}, {"h", x[2]}, {"w", x[3]}, {"r", k.at(0)}, {"s", k.at(1)}, {"stride", strides[0]},
          {"pad_top", pads[0]}, {"pad_left", pads[1]}, {"pad_bottom", pads[2] + extra_bottom}, {"pad_right", pads[3] + extra_right}};
}

OpDef window_pool(const std::string& name, std::vector<int> versions, std::vector<std::string> attributes) {
  OpDef d;
  d.name = name;
  d.versions = std::move(versions);
  d.attributes = std::move(attributes);
  d.normalize = [](Graph& g, Node n, const OpVersion&) { return window::as_2d(g, std::move(n), window::Kind::Pool, window::normalize); };
  d.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, DType::Float32, pool_shape(g, n)); };
  return d;
}

OpDef max_pool() {
  OpDef d = window_pool("MaxPool", {1, 8, 10, 11, 12}, {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (auto why = window::check(n, window::Kind::Pool)) return why;
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
  d.check = [](const Node& n, const OpVersion&) { return window::check(n, window::Kind::Pool); };
  d.lower = [](const Graph& g, const Node& n) {
    Named e = window_extents(g, n);
    e["count_include_pad"] = n.attr_int("count_include_pad", 0);
    return lowering::call(lowering::named_call(n, "avg_pool2d", e, lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

OpDef global_average_pool() {
  OpDef d;
  d.name = "GlobalAveragePool";
  d.versions = {1};
  d.normalize = [](Graph&, Node n, const OpVersion&) { return std::vector<Node>{std::move(n)}; };
  d.infer = [](Graph& g, const Node& n) {
    const Value& x = rules::in(g, n, 0);
    rules::require_rank(n, x, 4, "input");
    rules::set_out(g, n, 0, DType::Float32, {x.shape[0], x.shape[1], 1, 1});
  };
  d.lower = [](const Graph& g, const Node& n) {
    const Shape& x = g.input_of(n, 0).shape;
    return lowering::call(
        lowering::named_call(n, "global_avg_pool2d", {{"n", x[0]}, {"c", x[1]}, {"h", x[2]}, {"w", x[3]}}, lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

}  // namespace

void add_pool_ops(std::vector<OpDef>& ops) {
  ops.push_back(max_pool());
  ops.push_back(average_pool());
  ops.push_back(global_average_pool());
}

}  // namespace tf::graph

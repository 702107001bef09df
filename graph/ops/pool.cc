// MaxPool, AveragePool (2-D windows, 1-D as 2-D over a unit height, 3-D on NCDHW as max_pool3d /
// avg_pool3d; ceil_mode as extra padding at the end), GlobalAveragePool and GlobalMaxPool. A 2-D
// MaxPool max_pool2d does not take (dilated, or of unequal strides) runs as the Max of its window's
// taps, each a strided_copy of the input.
#include <algorithm>
#include <limits>

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
int64_t pool_output(const Node& n, int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end) {
  const bool ceil = n.attr_int("ceil_mode", 0) != 0;
  int64_t out = window_output(in, k, stride, dilation, pad_begin, pad_end, ceil);
  if (ceil && out > 1 && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

Shape pool_shape(const Graph& g, const Node& n) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() != 4 && x.shape.size() != 5) fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; rank 4 or 5 is required");
  const size_t axes = x.shape.size() - 2;
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", std::vector<int64_t>(axes, 1));
  const auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * axes, 0)), dil = n.attr_ints("dilations", std::vector<int64_t>(axes, 1));
  const std::string count = std::to_string(axes);
  if (k.size() != axes) fail(n, "attribute 'kernel_shape' must have " + count + " extents");
  if (strides.size() != axes) fail(n, "attribute 'strides' must have " + count + " extents, got " + std::to_string(strides.size()));
  if (pads.size() != 2 * axes) fail(n, "attribute 'pads' must have " + std::to_string(2 * axes) + " extents, got " + std::to_string(pads.size()));
  if (dil.size() != axes) fail(n, "attribute 'dilations' must have " + count + " extents, got " + std::to_string(dil.size()));
  Shape out = {x.shape[0], x.shape[1]};
  for (size_t a = 0; a < axes; ++a) {
    out.push_back(pool_output(n, x.shape[2 + a], k[a], strides[a], dil[a], pads[a], pads[axes + a]));
    if (out.back() <= 0) fail(n, "the window is larger than the padded input " + shape_str(x.shape));
  }
  return out;
}

// ceil_mode's last partial window reads padding past the end: as much extra end padding per axis
// as it needs, which max ignores and an average not counting padding leaves out of its count.
std::vector<int64_t> padded_for_ceil(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const Shape& y = g.output_of(n).shape;
  const size_t axes = x.size() - 2;
  const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", std::vector<int64_t>(axes, 1));
  std::vector<int64_t> pads = n.attr_ints("pads", {});
  bool extra = false;
  for (size_t a = 0; a < axes; ++a) {
    const int64_t more = std::max<int64_t>(0, (y[2 + a] - 1) * s[a] + d[a] * (k[a] - 1) + 1 - (x[2 + a] + pads[a] + pads[axes + a]));
    pads[axes + a] += more;
    extra = extra || more > 0;
  }
  if (extra && n.attr_int("count_include_pad", 0) != 0) {
    fail(n, "attribute 'ceil_mode' = 1 with 'count_include_pad' = 1 is not supported (a window past the end counts only the explicit pads)");
  }
  return pads;
}

// The pool2d kernel's extents.
Named window_extents(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}), pads = padded_for_ceil(g, n);
  if (strides[0] != strides[1]) fail(n, "attribute 'strides' = " + rules::ints_text(strides) + ": one stride for both axes is supported");
  return {{"n", x[0]}, {"c", x[1]}, {"h", x[2]}, {"w", x[3]}, {"r", k.at(0)}, {"s", k.at(1)}, {"stride", strides[0]},
          {"pad_top", pads[0]}, {"pad_left", pads[1]}, {"pad_bottom", pads[2]}, {"pad_right", pads[3]}};
}

// A 3-D pool as max_pool3d / avg_pool3d: every stride and dilation is the kernel's.
KernelCall pool3d_call(const Graph& g, const Node& n, const std::string& kernel) {
  Named e = window::named_3d(g.input_of(n, 0).shape, n.attr_ints("kernel_shape", {}), n.attr_ints("strides", {}),
                             n.attr_ints("dilations", {1, 1, 1}), padded_for_ceil(g, n));
  if (kernel == "avg_pool3d") e["count_include_pad"] = n.attr_int("count_include_pad", 0);
  return lowering::named_call(n, kernel, e, lowering::with_output({n.inputs[0]}, n));
}

bool is_3d(const Graph& g, const Node& n) { return g.input_of(n, 0).shape.size() == 5; }

bool needs_taps(const Node& n) {
  const auto s = n.attr_ints("strides", {1, 1}), d = n.attr_ints("dilations", {1, 1});
  return s[0] != s[1] || d[0] != 1 || d[1] != 1;
}

// Tap (i, j) of the window: output (oy, ox) reads input (oy * stride_h + i * dilation_h - pad_top,
// ox * stride_w + j * dilation_w - pad_left), -inf outside the input; the Max of all taps is the
// MaxPool. A tap reads the whole input, so this is for the pools exporters rarely write.
std::vector<Node> max_of_taps(Graph& g, const Node& n) {
  const Shape y = pool_shape(g, n);
  const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", {}), p = n.attr_ints("pads", {});
  constexpr int64_t kMaxTaps = 64;
  if (k[0] * k[1] > kMaxTaps) fail(n, "a dilated window or one of unequal strides is supported up to " + std::to_string(kMaxTaps) + " taps");
  const std::string lowest = rules::add_constant(g, n.name + "_lowest", Tensor::floats({1}, {-std::numeric_limits<float>::infinity()}));
  std::vector<Node> nodes;
  Node max = n;
  max.op = "Max";
  max.attrs.clear();
  max.inputs.clear();
  for (int64_t i = 0; i < k[0]; ++i) {
    for (int64_t j = 0; j < k[1]; ++j) {
      Node t = rules::helper_node(g, "max_pool_tap", {n.inputs[0], lowest}, n.outputs[0] + "_tap");
      t.attrs["starts"] = std::vector<int64_t>{i * d[0] - p[0], j * d[1] - p[1]};
      t.attrs["steps"] = std::vector<int64_t>{s[0], s[1]};
      t.attrs["extents"] = std::vector<int64_t>{y[2], y[3]};
      max.inputs.push_back(t.outputs[0]);
      nodes.push_back(std::move(t));
    }
  }
  nodes.push_back(std::move(max));
  return nodes;
}

// One tap as strided_copy: constant mode (the -inf input) where some index falls outside the input.
NodeLowering lower_tap(const Graph& g, const Node& n) {
  const Shape& x = rules::in(g, n, 0).shape;
  const Shape& y = g.output_of(n).shape;
  const auto starts = n.attr_ints("starts", {}), steps = n.attr_ints("steps", {});
  Named e = {{"rank", 4}};
  bool outside = false;
  for (size_t a = 0; a < 4; ++a) {
    const int64_t start = a < 2 ? 0 : starts.at(a - 2), step = a < 2 ? 1 : steps.at(a - 2);
    e["d" + std::to_string(a)] = x[a], e["o" + std::to_string(a)] = y[a], e["s" + std::to_string(a)] = start, e["t" + std::to_string(a)] = step;
    outside = outside || start < 0 || start + step * (y[a] - 1) >= x[a];
  }
  e["mode"] = outside ? 1 : 0;
  std::vector<std::string> args = {n.inputs[0]};
  if (outside) args.push_back(n.inputs[1]);
  return lowering::call(lowering::named_call(n, "strided_copy", e, lowering::with_output(args, n)));
}

OpDef max_pool_tap() {
  OpDef d;
  d.name = "max_pool_tap";
  d.infer = [](Graph& g, const Node& n) {
    const Shape& x = rules::in(g, n, 0).shape;
    const auto extents = n.attr_ints("extents", {});
    rules::set_out(g, n, 0, DType::Float32, {x.at(0), x.at(1), extents.at(0), extents.at(1)});
  };
  d.lower = lower_tap;
  return d;
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
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    std::vector<Node> nodes;
    for (Node& m : window::as_2d(g, std::move(n), window::Kind::Pool, window::normalize)) {
      if (m.op != "MaxPool" || is_3d(g, m) || !needs_taps(m)) {
        nodes.push_back(std::move(m));
        continue;
      }
      for (Node& t : max_of_taps(g, m)) nodes.push_back(std::move(t));
    }
    return nodes;
  };
  d.lower = [](const Graph& g, const Node& n) {
    if (is_3d(g, n)) return lowering::call(pool3d_call(g, n, "max_pool3d"));
    return lowering::call(lowering::named_call(n, "max_pool2d", window_extents(g, n), lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

OpDef average_pool() {
  OpDef d = window_pool("AveragePool", {1, 7, 10, 11, 19}, {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"});
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (auto why = window::check(n, window::Kind::Pool)) return why;
    const auto dil = n.attr_ints("dilations", {});
    // avg_pool3d takes dilations; the 2-D kernel does not.
    if (n.attr_ints("kernel_shape", {}).size() != 3 && !std::all_of(dil.begin(), dil.end(), [](int64_t x) { return x == 1; })) return "attribute 'dilations' = " + rules::ints_text(dil) + ": dilated average pooling is not supported";
    return std::nullopt;
  };
  d.lower = [](const Graph& g, const Node& n) {
    if (is_3d(g, n)) return lowering::call(pool3d_call(g, n, "avg_pool3d"));
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
  ops.push_back(max_pool_tap());
}

}  // namespace tf::graph

// MaxPool, AveragePool (2-D windows, 1-D as 2-D over a unit height, 3-D on NCDHW as max_pool3d /
// avg_pool3d; ceil_mode as extra padding at the end), GlobalAveragePool and GlobalMaxPool. The
// pool2d kernels take one stride and no
// dilation: unequal strides pool at their common divisor and keep every few rows; a dilated MaxPool
// pools a strided copy of the input (strides multiples of the dilations) or takes the Max of its
// window's taps, each a strided_copy of the input.
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
int64_t pool_output(const Node& n, int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin,
                    int64_t pad_end) {
  const bool ceil = n.attr_int("ceil_mode", 0) != 0;
  int64_t out = window_output(in, k, stride, dilation, pad_begin, pad_end, ceil);
  if (ceil && out > 1 && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

Shape pool_shape(const Graph& g, const Node& n) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() != 4 && x.shape.size() != 5)
    fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; rank 4 or 5 is required");
  const size_t axes = x.shape.size() - 2;
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", std::vector<int64_t>(axes, 1));
  const auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * axes, 0)),
             dil = n.attr_ints("dilations", std::vector<int64_t>(axes, 1));
  const std::string count = std::to_string(axes);
  if (k.size() != axes) fail(n, "attribute 'kernel_shape' must have " + count + " extents");
  if (strides.size() != axes)
    fail(n, "attribute 'strides' must have " + count + " extents, got " + std::to_string(strides.size()));
  if (pads.size() != 2 * axes)
    fail(n, "attribute 'pads' must have " + std::to_string(2 * axes) + " extents, got " + std::to_string(pads.size()));
  if (dil.size() != axes)
    fail(n, "attribute 'dilations' must have " + count + " extents, got " + std::to_string(dil.size()));
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
  const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}),
             d = n.attr_ints("dilations", std::vector<int64_t>(axes, 1));
  std::vector<int64_t> pads = n.attr_ints("pads", {});
  bool extra = false;
  for (size_t a = 0; a < axes; ++a) {
    const int64_t more =
        std::max<int64_t>(0, (y[2 + a] - 1) * s[a] + d[a] * (k[a] - 1) + 1 - (x[2 + a] + pads[a] + pads[axes + a]));
    pads[axes + a] += more;
    extra = extra || more > 0;
  }
  if (extra && n.attr_int("count_include_pad", 0) != 0) {
    fail(
        n,
        "attribute 'ceil_mode' = 1 with 'count_include_pad' = 1 is not supported (a window past the end counts only the explicit pads)");
  }
  return pads;
}

// The pool2d kernel's extents.
Named window_extents(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}),
             pads = padded_for_ceil(g, n);
  if (strides[0] != strides[1])
    fail(n, "attribute 'strides' = " + rules::ints_text(strides) + ": one stride for both axes is supported");
  return {{"n", x[0]},
          {"c", x[1]},
          {"h", x[2]},
          {"w", x[3]},
          {"r", k.at(0)},
          {"s", k.at(1)},
          {"stride", strides[0]},
          {"pad_top", pads[0]},
          {"pad_left", pads[1]},
          {"pad_bottom", pads[2]},
          {"pad_right", pads[3]}};
}

// A 3-D pool as max_pool3d / avg_pool3d: every stride and dilation is the kernel's.
KernelCall pool3d_call(const Graph& g, const Node& n, const std::string& kernel) {
  Named e = window::named_3d(g.input_of(n, 0).shape, n.attr_ints("kernel_shape", {}), n.attr_ints("strides", {}),
                             n.attr_ints("dilations", {1, 1, 1}), padded_for_ceil(g, n));
  if (kernel == "avg_pool3d") e["count_include_pad"] = n.attr_int("count_include_pad", 0);
  return lowering::named_call(n, kernel, e, lowering::with_output({n.inputs[0]}, n));
}

bool is_3d(const Graph& g, const Node& n) { return g.input_of(n, 0).shape.size() == 5; }

// A strided window of `x` ([N, C, H, W]): output (oy, ox) reads input (starts[0] + oy * steps[0],
// starts[1] + ox * steps[1]), -inf outside the input. Its shape is set at once, since the
// normalization after it reads it.
std::string lowest(Graph& g, const std::string& stem) {
  return rules::add_constant(g, stem + "_lowest", Tensor::floats({1}, {-std::numeric_limits<float>::infinity()}));
}

Node tap(Graph& g, const std::string& x, const std::string& lowest, const std::string& stem,
         std::vector<int64_t> starts, std::vector<int64_t> steps, std::vector<int64_t> extents) {
  const Shape& in = g.value(x).shape;
  Node t = rules::helper_node(g, "pool_tap", {x, lowest}, stem);
  g.value(t.outputs[0]).shape = {in.at(0), in.at(1), extents.at(0), extents.at(1)};
  t.attrs["starts"] = std::move(starts);
  t.attrs["steps"] = std::move(steps);
  t.attrs["extents"] = std::move(extents);
  return t;
}

// Tap (i, j) of the window: output (oy, ox) reads input (oy * stride_h + i * dilation_h - pad_top,
// ox * stride_w + j * dilation_w - pad_left); the Max of all taps is the MaxPool. A tap reads the
// whole output's worth of input, so this is for small dilated windows whose stride is not a
// multiple of their dilation.
std::vector<Node> max_of_taps(Graph& g, const Node& n) {
  const Shape y = pool_shape(g, n);
  const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", {}),
             p = n.attr_ints("pads", {});
  constexpr int64_t kMaxTaps = 64;
  if (k[0] * k[1] > kMaxTaps) {
    fail(n, "a dilated window " + rules::ints_text(k) + " whose strides " + rules::ints_text(s) +
                " are not multiples of its dilations " + rules::ints_text(d) + " is supported up to " +
                std::to_string(kMaxTaps) + " taps");
  }
  const std::string outside = lowest(g, n.name);
  std::vector<Node> nodes;
  Node max = n;
  max.op = "Max";
  max.attrs.clear();
  max.inputs.clear();
  for (int64_t i = 0; i < k[0]; ++i) {
    for (int64_t j = 0; j < k[1]; ++j) {
      nodes.push_back(tap(g, n.inputs[0], outside, n.outputs[0] + "_tap", {i * d[0] - p[0], j * d[1] - p[1]},
                          {s[0], s[1]}, {y[2], y[3]}));
      max.inputs.push_back(nodes.back().outputs[0]);
    }
  }
  nodes.push_back(std::move(max));
  return nodes;
}

// The dilation of a window of one tap on an axis is no dilation.
std::vector<int64_t> effective_dilations(const Node& n) {
  const auto k = n.attr_ints("kernel_shape", {});
  auto d = n.attr_ints("dilations", {1, 1});
  for (size_t a = 0; a < 2; ++a) d[a] = k[a] == 1 ? 1 : d[a];
  return d;
}

// A dilated MaxPool whose strides are multiples m of its dilations d reads only the input rows and
// columns pads + d * t: their strided copy (-inf outside the input), pooled undilated with strides
// m and no padding, is the same pool with a window max_pool2d takes.
std::vector<Node> undilated(Graph& g, Node n) {
  const Shape y = pool_shape(g, n);
  const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}), p = n.attr_ints("pads", {});
  const auto d = effective_dilations(n);
  std::vector<int64_t> m(2), extents(2);
  for (size_t a = 0; a < 2; ++a) m[a] = s[a] / d[a], extents[a] = (y[2 + a] - 1) * m[a] + k[a];
  std::vector<Node> nodes = {
      tap(g, n.inputs[0], lowest(g, n.name), n.name + "_dilated_rows", {-p[0], -p[1]}, d, extents)};
  n.inputs[0] = nodes.back().outputs[0];
  n.attrs["strides"] = m;
  n.attrs["dilations"] = std::vector<int64_t>{1, 1};
  n.attrs["pads"] = std::vector<int64_t>{0, 0, 0, 0};
  n.attrs["ceil_mode"] = int64_t{0};
  nodes.push_back(std::move(n));
  return nodes;
}

int64_t gcd(int64_t a, int64_t b) { return b == 0 ? a : gcd(b, a % b); }

// The pool2d kernels take one stride for both axes. Strides s of a pool with a (1, 1) dilation
// that differ: the pool at the common stride g = gcd (an axis of one output row has any stride),
// its last window at the end padded as ceil_mode pads it, then every (s / g)-th row and column.
std::vector<Node> equal_strides(Graph& g, Node n) {
  const Shape y = pool_shape(g, n);
  const Shape& x = g.value(n.inputs[0]).shape;
  const auto s = n.attr_ints("strides", {}), k = n.attr_ints("kernel_shape", {});
  auto p = n.attr_ints("pads", {});
  int64_t common = 0;
  for (size_t a = 0; a < 2; ++a) common = y[2 + a] > 1 ? gcd(s[a], common) : common;
  if (common == 0) common = s[0];
  std::vector<int64_t> steps(2, 1);
  for (size_t a = 0; a < 2; ++a) {
    steps[a] = y[2 + a] > 1 ? s[a] / common : 1;
    const int64_t short_by = (y[2 + a] - 1) * s[a] + k[a] - (x[2 + a] + p[a] + p[a + 2]);
    if (short_by <= 0) continue;
    if (n.op == "AveragePool" && n.attr_int("count_include_pad", 0) != 0) {
      fail(
          n,
          "attribute 'ceil_mode' = 1 with 'count_include_pad' = 1 is not supported (a window past the end counts only the explicit pads)");
    }
    p[a + 2] += short_by;
  }
  n.attrs["strides"] = std::vector<int64_t>{common, common};
  n.attrs["pads"] = p;
  n.attrs["ceil_mode"] = int64_t{0};
  const Shape pooled = pool_shape(g, n);
  if (pooled == y) return {std::move(n)};
  const std::string out = n.outputs.at(0);
  n.outputs[0] = g.unique_name(out + "_pooled");
  g.set_value(Value{n.outputs[0], DType::Float32, pooled, nullptr});
  Node every = tap(g, n.outputs[0], lowest(g, n.name), out + "_strided", {0, 0}, steps, {y[2], y[3]});
  every.outputs = {out};
  return {std::move(n), std::move(every)};
}

// A 2-D MaxPool as max_pool2d takes it (one stride, no dilation), or as the Max of its taps.
// A uint8 one runs as max_pool2d_u8 only (its taps would pad with float's lowest value).
std::vector<Node> max_pool_2d(Graph& g, Node n) {
  const auto s = n.attr_ints("strides", {}), d = effective_dilations(n);
  if (g.input_of(n, 0).dtype == DType::UInt8) {
    if (d[0] != 1 || d[1] != 1 || s[0] != s[1])
      fail(n, "a uint8 MaxPool with dilations or unequal strides is not supported (float32 is)");
    const Node pool = n;
    std::vector<Node> nodes = equal_strides(g, std::move(n));
    if (nodes.size() != 1)
      fail(pool, "a uint8 MaxPool whose ceil_mode keeps a window past the padding is not supported (float32 is)");
    return nodes;
  }
  std::vector<Node> nodes;
  if (d[0] != 1 || d[1] != 1) {
    if (s[0] % d[0] != 0 || s[1] % d[1] != 0) return max_of_taps(g, n);
    nodes = undilated(g, std::move(n));
    n = std::move(nodes.back());
    nodes.pop_back();
  }
  for (Node& m : equal_strides(g, std::move(n))) nodes.push_back(std::move(m));
  return nodes;
}

// The nodes that run a MaxPool or AveragePool; `pool_2d` finishes a 2-D one (a 3-D one is one pool3d kernel).
std::vector<Node> pool_nodes(Graph& g, Node n, const std::function<std::vector<Node>(Graph&, Node)>& pool_2d) {
  std::vector<Node> nodes;
  for (Node& m : window::as_2d(g, std::move(n), window::Kind::Pool, window::normalize)) {
    if ((m.op != "MaxPool" && m.op != "AveragePool") || is_3d(g, m)) {
      nodes.push_back(std::move(m));
      continue;
    }
    for (Node& t : pool_2d(g, std::move(m))) nodes.push_back(std::move(t));
  }
  return nodes;
}

std::vector<Node> finish_max_pool(Graph& g, Node n) {
  window::normalize(g, n);
  return max_pool_2d(g, std::move(n));
}

std::vector<Node> finish_average_pool(Graph& g, Node n) {
  window::normalize(g, n);
  return equal_strides(g, std::move(n));
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
    e["d" + std::to_string(a)] = x[a], e["o" + std::to_string(a)] = y[a], e["s" + std::to_string(a)] = start,
            e["t" + std::to_string(a)] = step;
    outside = outside || start < 0 || start + step * (y[a] - 1) >= x[a];
  }
  e["mode"] = outside ? 1 : 0;
  std::vector<std::string> args = {n.inputs[0]};
  if (outside) args.push_back(n.inputs[1]);
  return lowering::call(lowering::named_call(n, "strided_copy", e, lowering::with_output(args, n)));
}

OpDef pool_tap() {
  OpDef d;
  d.name = "pool_tap";
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
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    return window::as_2d(g, std::move(n), window::Kind::Pool, window::normalize);
  };
  d.infer = [](Graph& g, const Node& n) {
    // A 2-D MaxPool also pools uint8 (a quantized model's activations; ONNX allows it from opset 12).
    const Value& x = rules::in(g, n, 0);
    const bool u8 = n.op == "MaxPool" && x.dtype == DType::UInt8 && x.shape.size() == 4;
    if (!u8) rules::require_float32(g, n, n.op);
    rules::set_out(g, n, 0, u8 ? DType::UInt8 : DType::Float32, pool_shape(g, n));
  };
  return d;
}

OpDef max_pool() {
  OpDef d = window_pool("MaxPool", {1, 8, 10, 11, 12},
                        {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (auto why = window::check(n, window::Kind::Pool)) return why;
    if (n.attr_int("storage_order", 0) != 0) return "attribute 'storage_order' = 1 is not supported";
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "output 'Indices' is not supported";
    return std::nullopt;
  };
  d.normalize = [](Graph& g, Node n, const OpVersion&) { return pool_nodes(g, std::move(n), finish_max_pool); };
  d.lower = [](const Graph& g, const Node& n) {
    if (is_3d(g, n)) return lowering::call(pool3d_call(g, n, "max_pool3d"));
    const std::string op = rules::in(g, n, 0).dtype == DType::UInt8 ? "max_pool2d_u8" : "max_pool2d";
    return lowering::call(lowering::named_call(n, op, window_extents(g, n), lowering::with_output({n.inputs[0]}, n)));
  };
  return d;
}

OpDef average_pool() {
  OpDef d = window_pool("AveragePool", {1, 7, 10, 11, 19},
                        {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"});
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (auto why = window::check(n, window::Kind::Pool)) return why;
    const auto dil = n.attr_ints("dilations", {});
    // avg_pool3d takes dilations; the 2-D kernel does not.
    if (n.attr_ints("kernel_shape", {}).size() != 3 &&
        !std::all_of(dil.begin(), dil.end(), [](int64_t x) { return x == 1; })) {
      return "attribute 'dilations' = " + rules::ints_text(dil) + ": dilated average pooling is not supported";
    }
    return std::nullopt;
  };
  d.normalize = [](Graph& g, Node n, const OpVersion&) { return pool_nodes(g, std::move(n), finish_average_pool); };
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
    if (x.shape.size() < 3)
      fail(n,
           "input '" + x.name + "' has shape " + shape_str(x.shape) + "; [N, C, D1, ...] (rank 3 or more) is required");
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
  ops.push_back(pool_tap());
}

}  // namespace tf::graph

// ConvTranspose (2-D, and 1-D as 2-D over a unit height) as the conv2d_transpose kernels: groups,
// strides and dilations per axis, output_padding; output_shape and auto_pad resolved into pads at
// import, as ONNX defines them (pads may come out negative: an output beyond the natural one).
#include "compiler/analysis/affine.h"
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/window.h"

namespace tf::graph {
namespace {

using rules::fail;
using rules::in;
using rules::ints_text;

std::optional<std::string> check(const Node& n, const OpVersion&) {
  if (auto why = window::check(n, window::Kind::ConvTranspose)) return why;
  for (int64_t x : n.attr_ints("output_shape", {})) {
    if (x <= 0) return "attribute 'output_shape' = " + ints_text(n.attr_ints("output_shape", {})) + " has a non-positive extent";
  }
  return std::nullopt;
}

// The spatial extents output_shape asks for: it may list N and C too.
std::vector<int64_t> requested_output(const Node& n) {
  std::vector<int64_t> v = n.attr_ints("output_shape", {});
  if (v.size() == 4) v.erase(v.begin(), v.begin() + 2);
  if (v.size() != 2) fail(n, "attribute 'output_shape' = " + ints_text(n.attr_ints("output_shape", {})) + " does not give the 2 spatial extents");
  return v;
}

// Every default written out; output_shape or SAME_* become pads. With an output size `out` the
// padding is total = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out, split
// with half = floor(total / 2): SAME_UPPER puts half first, the others total - half first.
void normalize_2d(Graph& g, Node& n) {
  const Value& x = in(g, n, 0);
  rules::require_rank(n, x, 4, "input");
  const Value& w = in(g, n, 1);
  rules::require_rank(n, w, 4, "weight");
  const std::vector<int64_t> k = {w.shape[2], w.shape[3]};
  if (n.has("kernel_shape") && n.attr_ints("kernel_shape", {}) != k) {
    fail(n, "attribute 'kernel_shape' = " + ints_text(n.attr_ints("kernel_shape", {})) + " differs from the weight " + shape_str(w.shape));
  }
  n.attrs["kernel_shape"] = k;
  n.attrs["group"] = n.attr_int("group", 1);
  const auto s = n.attr_ints("strides", {1, 1}), d = n.attr_ints("dilations", {1, 1}), op = n.attr_ints("output_padding", {0, 0});
  n.attrs["strides"] = s;
  n.attrs["dilations"] = d;
  n.attrs["output_padding"] = op;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (auto_pad == "VALID") pads = {0, 0, 0, 0};
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (n.has("output_shape") || same) {
    const std::vector<int64_t> out = n.has("output_shape") ? requested_output(n) : std::vector<int64_t>{x.shape[2] * s[0], x.shape[3] * s[1]};
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t total = s[axis] * (x.shape[2 + axis] - 1) + op[axis] + (k[axis] - 1) * d[axis] + 1 - out[axis];
      const int64_t half = analysis::floor_div(total, 2);
      pads[axis] = auto_pad == "SAME_UPPER" ? half : total - half;
      pads[axis + 2] = total - pads[axis];
    }
  }
  n.attrs["pads"] = pads;
  n.attrs.erase("auto_pad");
  n.attrs.erase("output_shape");
}

lowering::Named extents(const Graph& g, const Node& n) {
  const Shape& x = in(g, n, 0).shape;
  const Shape& w = in(g, n, 1).shape;
  const int64_t group = n.attr_int("group", 1);
  const auto s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", {}), p = n.attr_ints("pads", {}), op = n.attr_ints("output_padding", {});
  if (s.size() != 2 || d.size() != 2 || p.size() != 4 || op.size() != 2) fail(n, "the window attributes are not 2-D");
  if (w.at(0) != x.at(1)) fail(n, "weight " + shape_str(w) + " does not have the input's " + std::to_string(x[1]) + " channels first");
  return {{"n", x[0]},           {"c", x[1]},           {"h", x[2]},           {"w", x[3]},           {"k", w[1] * group},
          {"r", w[2]},           {"s", w[3]},           {"group", group},      {"stride_h", s[0]},    {"stride_w", s[1]},
          {"dilation_h", d[0]},  {"dilation_w", d[1]},  {"pad_top", p[0]},     {"pad_left", p[1]},    {"pad_bottom", p[2]},
          {"pad_right", p[3]},   {"output_padding_h", op[0]}, {"output_padding_w", op[1]}};
}

const char* kernel_of(const Graph& g, const Node& n) { return g.input_present(n, 2) ? "conv2d_transpose_bias" : "conv2d_transpose"; }

// The kernel's shape rules are the op's: its checks name the extent that makes no sense.
KernelCall call_of(const Graph& g, const Node& n) {
  std::vector<std::string> args = {n.inputs[0], n.inputs[1]};
  if (g.input_present(n, 2)) args.push_back(n.inputs[2]);
  return lowering::named_call(n, kernel_of(g, n), extents(g, n), lowering::with_output(args, n));
}

void infer(Graph& g, const Node& n) {
  const KernelCall c = call_of(g, n);
  if (g.input_present(n, 2) && in(g, n, 2).shape != Shape{c.arg_shapes[2][0]}) {
    fail(n, "bias " + shape_str(in(g, n, 2).shape) + " is not [" + std::to_string(c.arg_shapes[2][0]) + "]");
  }
  rules::set_out(g, n, 0, DType::Float32, c.arg_shapes.back());
}

}  // namespace

void add_conv_transpose_ops(std::vector<OpDef>& ops) {
  OpDef d;
  d.name = "ConvTranspose";
  d.versions = {1, 11};
  d.attributes = {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"};
  d.check = check;
  d.normalize = [](Graph& g, Node n, const OpVersion&) { return window::as_2d(g, std::move(n), window::Kind::ConvTranspose, normalize_2d); };
  d.infer = infer;
  d.lower = [](const Graph& g, const Node& n) { return lowering::call(call_of(g, n)); };
  ops.push_back(std::move(d));
}

}  // namespace tf::graph

// ConvTranspose (2-D, and 1-D as 2-D over a unit height; 3-D on NCDHW) as the conv2d_transpose
// and conv3d_transpose kernels: groups, strides and dilations per axis, output_padding;
// output_shape and auto_pad resolved into pads at import, as ONNX defines them (pads may come out
// negative: an output beyond the natural one).
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
    if (x <= 0)
      return "attribute 'output_shape' = " + ints_text(n.attr_ints("output_shape", {})) + " has a non-positive extent";
  }
  return std::nullopt;
}

// The spatial extents output_shape asks for: it may list N and C too.
std::vector<int64_t> requested_output(const Node& n, size_t axes) {
  std::vector<int64_t> v = n.attr_ints("output_shape", {});
  if (v.size() == axes + 2) v.erase(v.begin(), v.begin() + 2);
  if (v.size() != axes)
    fail(n, "attribute 'output_shape' = " + ints_text(n.attr_ints("output_shape", {})) + " does not give the " +
                std::to_string(axes) + " spatial extents");
  return v;
}

// Every default written out; output_shape or SAME_* become pads. With an output size `out` the
// padding is total = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out, split
// with half = floor(total / 2): SAME_UPPER puts half first, the others total - half first.
void normalize_2d(Graph& g, Node& n) {
  const Value& x = in(g, n, 0);
  if (x.shape.size() != 4 && x.shape.size() != 5)
    fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; rank 4 or 5 is required");
  const size_t axes = x.shape.size() - 2;
  const Value& w = in(g, n, 1);
  rules::require_rank(n, w, x.shape.size(), "weight");
  const std::vector<int64_t> k = window::normalize_kernel_and_group(n, w);
  const std::vector<int64_t> ones(axes, 1), zeros(axes, 0);
  const auto s = n.attr_ints("strides", ones), d = n.attr_ints("dilations", ones),
             op = n.attr_ints("output_padding", zeros);
  for (const auto& [attr, v] : {std::pair{"strides", s}, std::pair{"dilations", d}, std::pair{"output_padding", op}}) {
    if (v.size() != axes)
      fail(n, "attribute '" + std::string(attr) + "' = " + ints_text(v) + " does not have the input's " +
                  std::to_string(axes) + " spatial axes");
  }
  n.attrs["strides"] = s;
  n.attrs["dilations"] = d;
  n.attrs["output_padding"] = op;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> pads = n.attr_ints("pads", std::vector<int64_t>(2 * axes, 0));
  if (auto_pad == "VALID") pads.assign(2 * axes, 0);
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (n.has("output_shape") || same) {
    std::vector<int64_t> out(axes);
    for (size_t a = 0; a < axes; ++a) out[a] = x.shape[2 + a] * s[a];
    if (n.has("output_shape")) out = requested_output(n, axes);
    pads.assign(2 * axes, 0);
    for (size_t axis = 0; axis < axes; ++axis) {
      const int64_t total = s[axis] * (x.shape[2 + axis] - 1) + op[axis] + (k[axis] - 1) * d[axis] + 1 - out[axis];
      const int64_t half = analysis::floor_div(total, 2);
      pads[axis] = auto_pad == "SAME_UPPER" ? half : total - half;
      pads[axis + axes] = total - pads[axis];
    }
  }
  if (pads.size() != 2 * axes)
    fail(n, "attribute 'pads' = " + ints_text(pads) + " does not have two values per spatial axis (" +
                std::to_string(axes) + ")");
  n.attrs["pads"] = pads;
  n.attrs.erase("auto_pad");
  n.attrs.erase("output_shape");
}

bool is_3d(const Graph& g, const Node& n) { return in(g, n, 0).shape.size() == 5; }

lowering::Named extents(const Graph& g, const Node& n) {
  const Shape& x = in(g, n, 0).shape;
  const Shape& w = in(g, n, 1).shape;
  const int64_t group = n.attr_int("group", 1);
  const auto s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", {}), p = n.attr_ints("pads", {}),
             op = n.attr_ints("output_padding", {});
  if (w.at(0) != x.at(1))
    fail(n, "weight " + shape_str(w) + " does not have the input's " + std::to_string(x[1]) + " channels first");
  if (is_3d(g, n)) {
    if (s.size() != 3 || d.size() != 3 || p.size() != 6 || op.size() != 3) fail(n, "the window attributes are not 3-D");
    lowering::Named e = window::named_3d(x, n.attr_ints("kernel_shape", {}), s, d, p);
    e["k"] = w[1] * group;
    e["groups"] = group;
    e["output_padding_d"] = op[0], e["output_padding_h"] = op[1], e["output_padding_w"] = op[2];
    return e;
  }
  if (s.size() != 2 || d.size() != 2 || p.size() != 4 || op.size() != 2) fail(n, "the window attributes are not 2-D");
  return {{"n", x[0]},
          {"c", x[1]},
          {"h", x[2]},
          {"w", x[3]},
          {"k", w[1] * group},
          {"r", w[2]},
          {"s", w[3]},
          {"group", group},
          {"stride_h", s[0]},
          {"stride_w", s[1]},
          {"dilation_h", d[0]},
          {"dilation_w", d[1]},
          {"pad_top", p[0]},
          {"pad_left", p[1]},
          {"pad_bottom", p[2]},
          {"pad_right", p[3]},
          {"output_padding_h", op[0]},
          {"output_padding_w", op[1]}};
}

std::string kernel_of(const Graph& g, const Node& n) {
  return std::string(is_3d(g, n) ? "conv3d_transpose" : "conv2d_transpose") + (g.input_present(n, 2) ? "_bias" : "");
}

// The kernel's shape rules are the op's: its checks name the extent that makes no sense.
KernelCall call_of(const Graph& g, const Node& n) {
  std::vector<std::string> args = {n.inputs[0], n.inputs[1]};
  if (g.input_present(n, 2)) args.push_back(n.inputs[2]);
  return lowering::named_call(n, kernel_of(g, n), extents(g, n), lowering::with_output(args, n));
}

void infer(Graph& g, const Node& n) {
  rules::require_float32(g, n, "ConvTranspose");
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
  d.attributes = {"auto_pad",       "dilations",    "group", "kernel_shape",
                  "output_padding", "output_shape", "pads",  "strides"};
  d.check = check;
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    return window::as_2d(g, std::move(n), window::Kind::ConvTranspose, normalize_2d);
  };
  d.infer = infer;
  d.lower = [](const Graph& g, const Node& n) { return lowering::call(call_of(g, n)); };
  ops.push_back(std::move(d));
}

}  // namespace tf::graph

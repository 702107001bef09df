// Conv (2-D, and 1-D as 2-D over a unit height; 3-D on NCDHW; groups and dilations; SAME padding
// resolved at import) and the fused conv2d / conv3d kernels fuse_epilogues makes of it. A Conv runs
// only as one of those: the pass always rewrites it when its bias is a constant.
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/window.h"
#include "graph/shape_inference.h"
#include "graph/tasks.h"

namespace tf::graph {
namespace {

using rules::fail;
using rules::in;

Shape conv_shape(const Graph& g, const Node& n) {
  const Value& x = in(g, n, 0);
  const Value& w = in(g, n, 1);
  if (x.shape.size() != 4 && x.shape.size() != 5)
    fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; rank 4 or 5 is required");
  rules::require_rank(n, w, x.shape.size(), "weight");
  const size_t axes = x.shape.size() - 2;
  const auto strides = n.attr_ints("strides", std::vector<int64_t>(axes, 1)),
             dil = n.attr_ints("dilations", std::vector<int64_t>(axes, 1));
  const auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * axes, 0));
  if (strides.size() != axes || dil.size() != axes || pads.size() != 2 * axes)
    fail(n, "the window attributes do not have the input's " + std::to_string(axes) + " spatial axes");
  const int64_t group = n.attr_int("group", 1);
  if (group <= 0 || x.shape[1] % group != 0 || w.shape[0] % group != 0)
    fail(n, "attribute 'group' = " + std::to_string(group) + " does not divide the channels");
  if (w.shape[1] * group != x.shape[1]) {
    fail(n, "weight " + shape_str(w.shape) + " does not match input channels " + std::to_string(x.shape[1]) +
                " with group " + std::to_string(group));
  }
  Shape out = {x.shape[0], w.shape[0]};
  for (size_t a = 0; a < axes; ++a) {
    out.push_back(window_output(x.shape[2 + a], w.shape[2 + a], strides[a], dil[a], pads[a], pads[axes + a], false));
    if (out.back() <= 0) fail(n, "the kernel is larger than the padded input " + shape_str(x.shape));
  }
  if (g.input_present(n, 2) && in(g, n, 2).shape != Shape{w.shape[0]})
    fail(n, "bias " + shape_str(in(g, n, 2).shape) + " is not [" + std::to_string(w.shape[0]) + "]");
  return out;
}

OpDef conv() {
  OpDef d;
  d.name = "Conv";
  d.versions = {1, 11};
  d.attributes = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
  d.check = [](const Node& n, const OpVersion&) { return window::check(n, window::Kind::Conv); };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    return window::as_2d(g, std::move(n), window::Kind::Conv, window::normalize);
  };
  d.infer = [](Graph& g, const Node& n) {
    rules::require_float32(g, n, "Conv");
    rules::set_out(g, n, 0, DType::Float32, conv_shape(g, n));
  };
  d.fusion.anchor = Anchor::Conv;
  return d;
}

// A fused conv2d kernel: its workload is the node's (tasks.h), its arguments the node's values.
OpDef fused_conv(const std::string& name) {
  OpDef d;
  d.name = name;
  d.lower = [](const Graph& g, const Node& n) {
    const NodeKernel k = *node_kernel(g, n);
    return lowering::call(
        lowering::make_call(n, lowering::registry_op(n.op), k.workload.shape, lowering::with_output(n.inputs, n)));
  };
  return d;
}

// A fused conv3d kernel: the node's input, weight and normalized 3-D attributes name its extents.
OpDef fused_conv3d(const std::string& name) {
  OpDef d;
  d.name = name;
  d.lower = [](const Graph& g, const Node& n) {
    auto e = window::named_3d(in(g, n, 0).shape, n.attr_ints("kernel_shape", {}), n.attr_ints("strides", {}),
                              n.attr_ints("dilations", {}), n.attr_ints("pads", {}));
    e["k"] = in(g, n, 1).shape.at(0);
    e["groups"] = n.attr_int("group", 1);
    return lowering::call(lowering::named_call(n, n.op, e, lowering::with_output(n.inputs, n)));
  };
  return d;
}

}  // namespace

void add_conv_ops(std::vector<OpDef>& ops) {
  ops.push_back(conv());
  for (const char* name :
       {"conv2d", "conv2d_bias", "conv2d_bias_relu", "conv2d_bias_add", "conv2d_bias_add_relu", "conv2d_bias_clip"})
    ops.push_back(fused_conv(name));
  for (const char* name : {"conv3d", "conv3d_bias", "conv3d_bias_relu"}) ops.push_back(fused_conv3d(name));
}

}  // namespace tf::graph

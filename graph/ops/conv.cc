// Conv (2-D, and 1-D as 2-D over a unit height; groups and dilations; SAME padding resolved at
// import) and the fused conv2d kernels fuse_epilogues makes of it. A Conv runs only as one of those: the pass always rewrites it when
// its bias is a constant.
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
  rules::require_rank(n, x, 4, "input");
  rules::require_rank(n, w, 4, "weight");
  const auto strides = n.attr_ints("strides", {1, 1}), dil = n.attr_ints("dilations", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  const int64_t group = n.attr_int("group", 1);
  if (group <= 0 || x.shape[1] % group != 0 || w.shape[0] % group != 0) fail(n, "attribute 'group' = " + std::to_string(group) + " does not divide the channels");
  if (w.shape[1] * group != x.shape[1]) {
    fail(n, "weight " + shape_str(w.shape) + " does not match input channels " + std::to_string(x.shape[1]) + " with group " + std::to_string(group));
  }
  const int64_t oh = window_output(x.shape[2], w.shape[2], strides[0], dil[0], pads[0], pads[2], false);
  const int64_t ow = window_output(x.shape[3], w.shape[3], strides[1], dil[1], pads[1], pads[3], false);
  if (oh <= 0 || ow <= 0) fail(n, "the kernel is larger than the padded input " + shape_str(x.shape));
  if (g.input_present(n, 2) && in(g, n, 2).shape != Shape{w.shape[0]}) fail(n, "bias " + shape_str(in(g, n, 2).shape) + " is not [" + std::to_string(w.shape[0]) + "]");
  return {x.shape[0], w.shape[0], oh, ow};
}

OpDef conv() {
  OpDef d;
  d.name = "Conv";
  d.versions = {1, 11};
  d.attributes = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
  d.check = [](const Node& n, const OpVersion&) { return window::check(n, window::Kind::Conv); };
  d.normalize = [](Graph& g, Node n, const OpVersion&) { return window::as_2d(g, std::move(n), window::Kind::Conv, window::normalize); };
  d.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, DType::Float32, conv_shape(g, n)); };
  d.fusion.anchor = Anchor::Conv;
  return d;
}

// A fused conv2d kernel: its workload is the node's (tasks.h), its arguments the node's values.
OpDef fused_conv(const std::string& name) {
  OpDef d;
  d.name = name;
  d.lower = [](const Graph& g, const Node& n) {
    const NodeKernel k = *node_kernel(g, n);
    return lowering::call(lowering::make_call(n, lowering::registry_op(n.op), k.workload.shape, lowering::with_output(n.inputs, n)));
  };
  return d;
}

}  // namespace

void add_conv_ops(std::vector<OpDef>& ops) {
  ops.push_back(conv());
  for (const char* name : {"conv2d", "conv2d_bias", "conv2d_bias_relu", "conv2d_bias_add_relu", "conv2d_bias_clip"}) ops.push_back(fused_conv(name));
}

}  // namespace tf::graph

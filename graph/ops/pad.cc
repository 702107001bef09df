// Pad, Tile and Expand: each output element reads one input element (or Pad's value), as
// strided_copy (graph/ops/strided.h). Canonical Pad: attributes pads (begins then ends, one per axis
// of the input; negative crops) and mode, inputs x and, in constant mode, the value (a float32
// scalar; 0 when the model gives none). Canonical Tile: attribute repeats. Canonical Expand:
// attribute shape, the output's extents (numpy broadcasting of the input and the model's shape).
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/strided.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;
using rules::in;

strided::Mode pad_mode(const Node& n) {
  const std::string m = n.attr_string("mode", "constant");
  if (m == "constant") return strided::Mode::Constant;
  if (m == "edge") return strided::Mode::Edge;
  if (m == "reflect") return strided::Mode::Reflect;
  if (m == "wrap") return strided::Mode::Wrap;
  fail(n, "attribute 'mode' = '" + m + "' is not constant, edge, reflect or wrap");
}

strided::Axes pad_axes(const Graph& g, const Node& n) {
  strided::Axes a;
  a.in = in(g, n, 0).shape;
  const size_t rank = a.in.size();
  const std::vector<int64_t> pads = n.attr_ints("pads", {});
  if (pads.size() != 2 * rank)
    fail(n, "pads " + rules::ints_text(pads) + " needs 2 entries per axis of rank " + std::to_string(rank));
  for (size_t k = 0; k < rank; ++k) {
    a.out.push_back(a.in[k] + pads[k] + pads[k + rank]);
    if (a.out[k] < 0) fail(n, "pads " + rules::ints_text(pads) + " crop axis " + std::to_string(k) + " below nothing");
    if (a.out[k] > 0 && a.in[k] == 0) fail(n, "pads an empty axis " + std::to_string(k));
    a.starts.push_back(-pads[k]);
    a.steps.push_back(1);
  }
  return a;
}

std::vector<Node> normalize_pad(Graph& g, Node n, const OpVersion& v) {
  const size_t rank = in(g, n, 0).shape.size();
  std::string value;
  if (v.since >= 11) {
    std::vector<int64_t> pads = rules::constant_ints(g, n, 1, "pads");
    if (v.since >= 18 && g.input_present(n, 3)) {
      const std::vector<int64_t> axes = rules::constant_ints(g, n, 3, "axes");
      if (pads.size() != 2 * axes.size())
        fail(n, "pads " + rules::ints_text(pads) + " needs 2 entries per axis of " + rules::ints_text(axes));
      std::vector<int64_t> full(2 * rank, 0);
      for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t k = normalize_axis(axes[i], static_cast<int64_t>(rank), n, "axes");
        full[k] = pads[i], full[k + rank] = pads[i + axes.size()];
      }
      pads = full;
    }
    n.attrs["pads"] = pads;
    if (g.input_present(n, 2)) value = n.inputs[2];
  } else if (n.has("value")) {
    value =
        rules::add_constant(g, n.name + "_value", Tensor::floats({}, {static_cast<float>(n.attr_float("value", 0))}));
  }
  n.attrs.erase("value");
  n.attrs["mode"] = n.attr_string("mode", "constant");
  const DType dtype = in(g, n, 0).dtype;
  if (pad_mode(n) == strided::Mode::Constant && value.empty()) {
    value = rules::add_constant(g, n.name + "_value",
                                dtype == DType::Float32   ? Tensor::floats({}, {0.0f})
                                : dtype == DType::Float64 ? Tensor::doubles({}, {0.0})
                                                          : Tensor::ints({}, {0}, dtype));
  }
  n.inputs = {n.inputs.at(0)};
  if (pad_mode(n) == strided::Mode::Constant) n.inputs.push_back(value);
  const strided::Axes a = pad_axes(g, n);
  strided::refuse_empty_output(n, a.out);
  return {std::move(n)};
}

double pad_value(const Node& n, const std::vector<const Tensor*>& inputs) {
  if (inputs.size() < 2 || !inputs[1]) return 0;
  if (inputs[1]->size() != 1) fail(n, "the pad value must be one element");
  return inputs[1]->at(0);
}

strided::Axes tile_axes(const Graph& g, const Node& n) {
  strided::Axes a;
  a.in = in(g, n, 0).shape;
  const std::vector<int64_t> r = n.attr_ints("repeats", {});
  if (r.size() != a.in.size())
    fail(n, "repeats " + rules::ints_text(r) + " needs one entry per axis of rank " + std::to_string(a.in.size()));
  for (size_t k = 0; k < r.size(); ++k) {
    if (r[k] < 0) fail(n, "repeats " + rules::ints_text(r) + " has a negative entry");
    a.out.push_back(a.in[k] * r[k]);
    a.starts.push_back(0);
    a.steps.push_back(1);
  }
  return a;
}

strided::Axes expand_axes(const Graph& g, const Node& n) {
  strided::Axes a;
  a.in = in(g, n, 0).shape;
  a.out = broadcast_shapes(a.in, n.attr_ints("shape", {}), n);
  a.in.insert(a.in.begin(), a.out.size() - a.in.size(), 1);
  a.starts.assign(a.out.size(), 0);
  a.steps.assign(a.out.size(), 1);
  return a;
}

// An op whose canonical node reads input 0 through `axes` in `mode` (Tile, Expand: wrap).
template <typename AxesFn>
void strided_phases(OpDef& d, AxesFn axes, strided::Mode mode) {
  d.infer = [axes](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, axes(g, n).out); };
  d.fold = [axes, mode](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return strided::read(n, *inputs.at(0), axes(g, n), mode, 0);
  };
  d.lower = [axes, mode](const Graph& g, const Node& n) { return strided::lower(g, n, axes(g, n), mode, ""); };
}

// The op's input 1 as attribute `attr`; an output with no elements is refused.
std::vector<Node> input_as_attribute(Graph& g, Node n, const std::string& attr,
                                     strided::Axes (*axes)(const Graph&, const Node&)) {
  rules::input_to_attribute(g, n, 1, attr);
  if (!n.has(attr)) fail(n, "needs input 1 ('" + attr + "')");
  strided::refuse_empty_output(n, axes(g, n).out);
  return {std::move(n)};
}

}  // namespace

void add_pad_ops(std::vector<OpDef>& ops) {
  OpDef p;
  p.name = "Pad";
  p.versions = {2, 11, 13, 18, 19, 21};
  p.attributes = {"pads", "mode", "value"};
  p.check = [](const Node& n, const OpVersion& v) -> std::optional<std::string> {
    if (n.attr_string("mode", "constant") == "wrap" && v.since < 19)
      return "attribute 'mode' = 'wrap' is new in Pad 19";
    return std::nullopt;
  };
  p.normalize = normalize_pad;
  p.infer = [](Graph& g, const Node& n) {
    pad_mode(n);
    rules::set_out(g, n, 0, in(g, n, 0).dtype, pad_axes(g, n).out);
  };
  p.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return strided::read(n, *inputs.at(0), pad_axes(g, n), pad_mode(n), pad_value(n, inputs));
  };
  p.lower = [](const Graph& g, const Node& n) {
    const strided::Mode mode = pad_mode(n);
    return strided::lower(g, n, pad_axes(g, n), mode, mode == strided::Mode::Constant ? n.inputs.at(1) : "");
  };
  ops.push_back(p);

  OpDef t;
  t.name = "Tile";
  t.versions = {6, 13};
  t.attributes = {"repeats"};
  t.normalize = [](Graph& g, Node n, const OpVersion&) {
    return input_as_attribute(g, std::move(n), "repeats", tile_axes);
  };
  strided_phases(t, tile_axes, strided::Mode::Wrap);
  ops.push_back(t);

  OpDef e;
  e.name = "Expand";
  e.versions = {8, 13};
  e.attributes = {"shape"};
  e.normalize = [](Graph& g, Node n, const OpVersion&) {
    return input_as_attribute(g, std::move(n), "shape", expand_axes);
  };
  strided_phases(e, expand_axes, strided::Mode::Wrap);
  ops.push_back(e);
}

}  // namespace tf::graph

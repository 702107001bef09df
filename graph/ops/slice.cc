// Slice and Split: reading a box of the input with steps, as strided_copy (graph/ops/strided.h).
// Slice's starts/ends/axes are attributes before 10 and inputs (with steps) from 10; Split's sizes
// are an attribute before 13 and an input from 13, or num_outputs equal parts from 18. Canonical
// Slice: attributes starts, ends, steps with one entry per axis of the input, starts and ends
// clamped as ONNX says (so the output's extents follow from them alone). Split becomes one
// canonical Slice per output. A piece with no elements is refused.
#include <algorithm>
#include <numeric>

#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/ops/strided.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;
using rules::in;

int64_t count(int64_t start, int64_t end, int64_t step) {
  if (step > 0) return end > start ? (end - start + step - 1) / step : 0;
  return start > end ? (start - end - step - 1) / -step : 0;
}

strided::Axes slice_axes(const Graph& g, const Node& n) {
  strided::Axes a;
  a.in = in(g, n, 0).shape;
  a.starts = n.attr_ints("starts", {});
  a.steps = n.attr_ints("steps", {});
  const std::vector<int64_t> ends = n.attr_ints("ends", {});
  if (a.starts.size() != a.in.size() || a.steps.size() != a.in.size() || ends.size() != a.in.size()) {
    fail(n, "canonical Slice needs starts, ends and steps for each of the " + std::to_string(a.in.size()) + " axes");
  }
  for (size_t k = 0; k < a.in.size(); ++k) a.out.push_back(count(a.starts[k], ends[k], a.steps[k]));
  return a;
}

// ONNX's clamping of one axis's start and end for extent d and step t.
void clamp(int64_t d, int64_t t, int64_t* start, int64_t* end) {
  if (*start < 0) *start += d;
  if (*end < 0) *end += d;
  if (t > 0) {
    *start = std::clamp<int64_t>(*start, 0, d);
    *end = std::clamp<int64_t>(*end, 0, d);
  } else if (d == 0) {
    *start = *end = 0;
  } else {
    *start = std::clamp<int64_t>(*start, 0, d - 1);
    *end = std::clamp<int64_t>(*end, -1, d - 1);
  }
}

// The canonical node; an output with no elements is refused.
std::vector<Node> finish(Graph& g, Node n) {
  const strided::Axes a = slice_axes(g, n);
  strided::refuse_empty_output(n, a.out);
  return {std::move(n)};
}

std::vector<Node> normalize_slice(Graph& g, Node n, const OpVersion& v) {
  if (v.since >= 10) {
    const char* names[] = {"starts", "ends", "axes", "steps"};
    for (size_t i = 4; i >= 1; --i) rules::input_to_attribute(g, n, i, names[i - 1]);
  }
  const Shape& x = in(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  if (!n.has("starts") || !n.has("ends")) fail(n, "needs starts and ends");
  const std::vector<int64_t> starts = n.attr_ints("starts", {}), ends = n.attr_ints("ends", {});
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  if (axes.empty() && !n.has("axes")) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  const std::vector<int64_t> steps = n.attr_ints("steps", std::vector<int64_t>(starts.size(), 1));
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    fail(n, "starts " + rules::ints_text(starts) + ", ends " + rules::ints_text(ends) + ", axes " +
                rules::ints_text(axes) + " and steps " + rules::ints_text(steps) + " differ in length");
  }
  std::vector<int64_t> s(x.size(), 0), e(x.begin(), x.end()), t(x.size(), 1);
  std::vector<bool> seen(x.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t k = normalize_axis(axes[i], rank, n, "axes");
    if (seen[k]) fail(n, "axes " + rules::ints_text(axes) + " repeat axis " + std::to_string(k));
    if (steps[i] == 0) fail(n, "steps " + rules::ints_text(steps) + " has a 0 step");
    seen[k] = true;
    s[k] = starts[i], e[k] = ends[i], t[k] = steps[i];
    clamp(x[k], t[k], &s[k], &e[k]);
  }
  n.attrs.erase("axes");
  n.attrs["starts"] = s;
  n.attrs["ends"] = e;
  n.attrs["steps"] = t;
  n.inputs.resize(1);
  return finish(g, std::move(n));
}

// Split's piece sizes along the axis: the attribute or input, or equal parts (the last smaller
// from 18 when num_outputs does not divide the extent).
std::vector<int64_t> split_sizes(Graph& g, Node& n, const OpVersion& v, int64_t extent) {
  if (v.since >= 13 && g.input_present(n, 1)) return rules::constant_ints(g, n, 1, "split");
  if (v.since < 13 && n.has("split")) return n.attr_ints("split", {});
  const int64_t parts = n.has("num_outputs") ? n.attr_int("num_outputs", 0) : static_cast<int64_t>(n.outputs.size());
  if (parts <= 0) fail(n, "attribute 'num_outputs' = " + std::to_string(parts) + " must be positive");
  if (parts != static_cast<int64_t>(n.outputs.size())) {
    fail(n, "attribute 'num_outputs' = " + std::to_string(parts) + " but the node has " +
                std::to_string(n.outputs.size()) + " outputs");
  }
  if (v.since < 18 && extent % parts != 0)
    fail(n, "extent " + std::to_string(extent) + " does not split into " + std::to_string(parts) + " equal parts");
  const int64_t each = (extent + parts - 1) / parts;
  std::vector<int64_t> sizes;
  for (int64_t p = 0, left = extent; p < parts; ++p, left -= each) sizes.push_back(std::clamp<int64_t>(left, 0, each));
  return sizes;
}

std::vector<Node> normalize_split(Graph& g, Node n, const OpVersion& v) {
  const Value& xv = in(g, n, 0);
  const Shape x = xv.shape;
  const DType dtype = xv.dtype;
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(x.size()), n, "axis");
  const std::vector<int64_t> sizes = split_sizes(g, n, v, x[axis]);
  if (sizes.size() != n.outputs.size())
    fail(n, "split " + rules::ints_text(sizes) + " has " + std::to_string(sizes.size()) + " sizes for " +
                std::to_string(n.outputs.size()) + " outputs");
  int64_t at = 0;
  for (int64_t s : sizes) {
    if (s < 0) fail(n, "split " + rules::ints_text(sizes) + " has a negative size");
    at += s;
  }
  if (at != x[axis])
    fail(n, "split " + rules::ints_text(sizes) + " sums to " + std::to_string(at) + ", not the extent " +
                std::to_string(x[axis]));
  std::vector<Node> out;
  at = 0;
  for (size_t p = 0; p < sizes.size(); ++p) {
    Node s;
    s.op = "Slice";
    s.name = g.unique_name(n.name + "_" + std::to_string(p));
    s.inputs = {n.inputs[0]};
    s.outputs = {n.outputs[p]};
    std::vector<int64_t> starts(x.size(), 0), ends(x.begin(), x.end());
    starts[axis] = at, ends[axis] = at + sizes[p];
    s.attrs["starts"] = starts;
    s.attrs["ends"] = ends;
    s.attrs["steps"] = std::vector<int64_t>(x.size(), 1);
    at += sizes[p];
    if (n.outputs[p].empty()) continue;
    g.set_value(Value{n.outputs[p], dtype, {}, nullptr});
    for (Node& kept : finish(g, std::move(s))) out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

void add_slice_ops(std::vector<OpDef>& ops) {
  OpDef s;
  s.name = "Slice";
  s.versions = {1, 10, 11, 13};
  s.attributes = {"starts", "ends", "axes", "steps"};
  s.normalize = normalize_slice;
  s.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, slice_axes(g, n).out); };
  s.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return strided::read(n, *inputs.at(0), slice_axes(g, n), strided::Mode::None, 0);
  };
  s.lower = [](const Graph& g, const Node& n) {
    return strided::lower(g, n, slice_axes(g, n), strided::Mode::None, "");
  };
  ops.push_back(s);

  OpDef p;
  p.name = "Split";
  p.versions = {2, 11, 13, 18};
  p.attributes = {"axis", "split", "num_outputs"};
  p.normalize = normalize_split;
  ops.push_back(p);
}

}  // namespace tf::graph

// Ops that only re-read their input's bytes or shape: Shape, Reshape, Flatten, Squeeze, Unsqueeze,
// Identity, Dropout (inference: an Identity), Constant (its value is read by the importer).
// At run time they are aliases: the output is the input's bytes under another shape.
#include <algorithm>
#include <set>

#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;
using rules::in;

Tensor with_shape(Tensor t, const Shape& s) {
  t.shape = s;
  return t;
}

// An op whose output is its input's data under the inferred shape.
OpDef view(const std::string& name, std::vector<int> versions, std::vector<std::string> attributes, Shape (*shape)(const Graph&, const Node&)) {
  OpDef d;
  d.name = name;
  d.versions = std::move(versions);
  d.attributes = std::move(attributes);
  d.infer = [shape](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, shape(g, n)); };
  d.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) { return with_shape(*inputs.at(0), g.value(n.outputs.at(0)).shape); };
  d.lower = [](const Graph&, const Node& n) { return lowering::alias(n.inputs.at(0)); };
  return d;
}

Shape reshape_shape(const Graph& g, const Node& n) {
  const Value& x = in(g, n, 0);
  const Tensor* spec = g.input_present(n, 1) ? g.constant(n.inputs[1]) : nullptr;
  if (!spec) fail(n, "the target shape (input 1) must be a constant: tunefarm plans static shapes");
  if (spec->dtype != DType::Int64) fail(n, "the target shape must be int64");
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  Shape out;
  int infer_at = -1;
  int64_t known = 1;
  for (int64_t i = 0; i < spec->size(); ++i) {
    int64_t d = spec->i64[i];
    if (d == 0 && !allowzero) {
      if (i >= static_cast<int64_t>(x.shape.size())) fail(n, "target extent 0 at " + std::to_string(i) + " has no input extent to copy");
      d = x.shape[i];
    }
    if (d == -1) {
      if (infer_at >= 0) fail(n, "the target shape has two -1 extents");
      infer_at = static_cast<int>(i);
    } else if (d < 0) {
      fail(n, "target extent " + std::to_string(d) + " is negative");
    } else if (__builtin_mul_overflow(known, d, &known)) {
      // No input holds that many elements: the product alone says the shapes cannot match.
      fail(n, "target extents of " + shape_str(spec->i64) + " multiply beyond any tensor of " + shape_str(x.shape));
    }
    out.push_back(d);
  }
  const int64_t total = element_count(x.shape);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) fail(n, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(out));
    out[infer_at] = total / known;
  }
  if (element_count(out) != total) fail(n, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(out));
  return out;
}

Shape flatten_shape(const Graph& g, const Node& n) {
  const Shape& x = in(g, n, 0).shape;
  // Flatten's axis is in [-rank, rank]: a negative one counts from the rank, not from rank + 1.
  const int64_t rank = static_cast<int64_t>(x.size()), raw = n.attr_int("axis", 1);
  const int64_t axis = normalize_axis(raw < 0 ? raw + rank : raw, rank + 1, n, "axis");
  return {element_count(Shape(x.begin(), x.begin() + axis)), element_count(Shape(x.begin() + axis, x.end()))};
}

Shape unsqueeze_shape(const Graph& g, const Node& n) {
  Shape out = in(g, n, 0).shape;
  const auto axes_attr = n.attr_ints("axes", {});
  const int64_t rank = static_cast<int64_t>(out.size() + axes_attr.size());
  std::set<int64_t> axes;
  for (int64_t a : axes_attr) axes.insert(normalize_axis(a, rank, n, "axes"));
  if (axes.size() != axes_attr.size()) fail(n, "attribute 'axes' = " + rules::ints_text(axes_attr) + " repeats an axis");
  for (int64_t a : axes) out.insert(out.begin() + a, 1);
  return out;
}

Shape squeeze_shape(const Graph& g, const Node& n) {
  const Shape& x = in(g, n, 0).shape;
  std::set<int64_t> axes;
  for (int64_t a : n.attr_ints("axes", {})) axes.insert(normalize_axis(a, static_cast<int64_t>(x.size()), n, "axes"));
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(x.size()); ++d) {
    const bool drop = axes.empty() ? x[d] == 1 : axes.count(d) != 0;
    if (drop && x[d] != 1) fail(n, "axis " + std::to_string(d) + " of " + shape_str(x) + " is not 1");
    if (!drop) out.push_back(x[d]);
  }
  return out;
}

Shape identity_shape(const Graph& g, const Node& n) { return in(g, n, 0).shape; }

// Squeeze and Unsqueeze: axes an attribute before 13, an input from 13; canonical: the attribute.
OpDef axes_view(const std::string& name, Shape (*shape)(const Graph&, const Node&)) {
  OpDef d = view(name, {1, 11, 13, 21}, {"axes"}, shape);
  d.normalize = [](Graph& g, Node n, const OpVersion& v) {
    if (v.since >= 13) rules::input_to_attribute(g, n, 1, "axes");
    return std::vector<Node>{std::move(n)};
  };
  return d;
}

// Inference: the output is the input. training_mode (input 2, from 12) must be absent or false;
// the ratio (an attribute before 12, input 1 from 12) is not read.
OpDef dropout() {
  OpDef d;
  d.name = "Dropout";
  d.versions = {7, 10, 12, 13};
  d.attributes = {"ratio", "seed", "is_test"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "output 1 (mask) is not supported (inference only)";
    return std::nullopt;
  };
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    if (g.input_present(n, 2)) {
      const Tensor* t = g.constant(n.inputs[2]);
      if (!t || t->size() != 1) fail(n, "input 'training_mode' must be a constant (inference only)");
      if (t->at(0) != 0) fail(n, "input 'training_mode' = true is not supported (inference only)");
    }
    n.op = "Identity";
    n.inputs.resize(1);
    n.outputs.resize(1);
    n.attrs.clear();
    return std::vector<Node>{std::move(n)};
  };
  return d;
}

OpDef shape_op() {
  OpDef d;
  d.name = "Shape";
  d.versions = {1, 13, 15, 19, 21};
  d.attributes = {"start", "end"};
  auto range = [](const Graph& g, const Node& n) {
    const int64_t rank = static_cast<int64_t>(in(g, n, 0).shape.size());
    auto clamp = [&](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank); };
    const int64_t start = clamp(n.attr_int("start", 0)), end = clamp(n.attr_int("end", rank));
    return std::make_pair(start, std::max(start, end));
  };
  d.infer = [range](Graph& g, const Node& n) {
    const auto [start, end] = range(g, n);
    rules::set_out(g, n, 0, DType::Int64, {end - start});
  };
  d.fold = [range](const Graph& g, const Node& n, const std::vector<const Tensor*>&) {
    const auto [start, end] = range(g, n);
    const Shape& s = g.input_of(n, 0).shape;
    return Tensor::ints({end - start}, std::vector<int64_t>(s.begin() + start, s.begin() + end));
  };
  d.fold_reads_shapes_only = true;
  return d;
}

OpDef constant() {
  OpDef d;
  d.name = "Constant";
  d.versions = {1, 9, 11, 12, 13, 19, 21};
  d.attributes = {"value", "value_float", "value_floats", "value_int", "value_ints"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    for (const char* a : {"value", "value_float", "value_floats", "value_int", "value_ints"}) {
      if (n.has(a)) return std::nullopt;
    }
    return "has no value attribute the importer reads (value, value_float(s), value_int(s))";
  };
  return d;
}

}  // namespace

void add_shape_ops(std::vector<OpDef>& ops) {
  ops.push_back(view("Reshape", {5, 13, 14, 19, 21}, {"allowzero"}, reshape_shape));
  ops.push_back(view("Flatten", {1, 9, 11, 13, 21}, {"axis"}, flatten_shape));
  ops.push_back(view("Identity", {1, 13, 14, 16, 19, 21}, {}, identity_shape));
  ops.push_back(axes_view("Squeeze", squeeze_shape));
  ops.push_back(axes_view("Unsqueeze", unsqueeze_shape));
  ops.push_back(dropout());
  ops.push_back(shape_op());
  ops.push_back(constant());
}

}  // namespace tf::graph

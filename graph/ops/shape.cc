// Ops that only re-read their input's bytes or shape: Shape, Reshape, Flatten, Squeeze, Unsqueeze,
// Identity, Dropout (inference: an Identity), Constant (its value is read by the importer).
// At run time they are aliases: the output is the input's bytes under another shape. And the ops
// that make shape arithmetic's values, folded since their inputs are shapes or constants: Size,
// Range, ConstantOfShape.
#include <algorithm>
#include <cmath>
#include <set>

#include "graph/onnx_import.h"

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
OpDef view(const std::string& name, std::vector<int> versions, std::vector<std::string> attributes,
           Shape (*shape)(const Graph&, const Node&)) {
  OpDef d;
  d.name = name;
  d.versions = std::move(versions);
  d.attributes = std::move(attributes);
  d.infer = [shape](Graph& g, const Node& n) { rules::set_out(g, n, 0, in(g, n, 0).dtype, shape(g, n)); };
  d.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return with_shape(*inputs.at(0), g.value(n.outputs.at(0)).shape);
  };
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
      if (i >= static_cast<int64_t>(x.shape.size()))
        fail(n, "target extent 0 at " + std::to_string(i) + " has no input extent to copy");
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
  if (axes.size() != axes_attr.size())
    fail(n, "attribute 'axes' = " + rules::ints_text(axes_attr) + " repeats an axis");
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

// Inference: the output is the input, the mask (from 7) all true, a constant. training_mode
// (input 2, from 12) must be absent or false; the ratio (an attribute before 12, input 1 from 12)
// is not read. Before 7, is_test=1 says inference (0, the default, is training) and the mask is
// not written.
OpDef dropout() {
  OpDef d;
  d.name = "Dropout";
  d.versions = {1, 6, 7, 10, 12, 13};
  d.attributes = {"ratio", "seed"};
  d.check = [](const Node& n, const OpVersion& v) -> std::optional<std::string> {
    if (v.since >= 7) return std::nullopt;
    if (n.attr_int("is_test", 0) == 0)
      return "attribute 'is_test' = 0 (training, the default of version " + std::to_string(v.since) +
             ") is not supported (inference only)";
    if (n.outputs.size() > 1 && !n.outputs[1].empty())
      return "output 1 (mask) is not written in test mode (version " + std::to_string(v.since) + ")";
    return std::nullopt;
  };
  rules::old_attributes(d, {"is_test"}, 7);
  d.normalize = [](Graph& g, Node n, const OpVersion& v) {
    if (g.input_present(n, 2)) {
      const Tensor* t = g.constant(n.inputs[2]);
      if (!t || t->size() != 1) fail(n, "input 'training_mode' must be a constant (inference only)");
      if (t->at(0) != 0) fail(n, "input 'training_mode' = true is not supported (inference only)");
    }
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) {
      // Version 7's mask is of the input's type (ones), 10's bool.
      const Shape& x = in(g, n, 0).shape;
      const size_t count = static_cast<size_t>(element_count(x));
      Value mask{n.outputs[1], v.since < 10 ? DType::Float32 : DType::Bool, x, nullptr};
      mask.data =
          std::make_shared<const Tensor>(v.since < 10 ? Tensor::floats(x, std::vector<float>(count, 1.0f))
                                                      : Tensor::ints(x, std::vector<int64_t>(count, 1), DType::Bool));
      g.set_value(std::move(mask));
    }
    n.op = "Identity";
    n.inputs.resize(1);
    n.outputs.resize(1);
    n.attrs.clear();
    return std::vector<Node>{std::move(n)};
  };
  rules::ignore_consumed_inputs(d);
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

OpDef size_op() {
  OpDef d;
  d.name = "Size";
  d.versions = {1, 13, 19, 21};
  d.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, DType::Int64, {}); };
  d.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>&) {
    return Tensor::ints({}, {element_count(g.input_of(n, 0).shape)});
  };
  d.fold_reads_shapes_only = true;
  return d;
}

// Range's three scalars, which must be constants: the output's extent depends on their values.
std::vector<const Tensor*> range_inputs(const Graph& g, const Node& n) {
  std::vector<const Tensor*> t;
  const char* names[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    const Tensor* c = g.input_present(n, i) ? g.constant(n.inputs[i]) : nullptr;
    if (!c)
      fail(n, std::string("input '") + names[i] +
                  "' must be a constant: the output's extent depends on it and tunefarm plans static shapes");
    if (c->size() != 1) fail(n, std::string("input '") + names[i] + "' must be a scalar");
    t.push_back(c);
  }
  for (const Tensor* c : t) {
    if (c->dtype != t[0]->dtype) fail(n, "start, limit and delta differ in type");
  }
  // ONNX's expected outputs of float Ranges (the window functions' expansions) differ from the
  // exact values in the 4th digit; until that is understood, only integer Ranges are taken.
  if (t[0]->dtype != DType::Int64 && t[0]->dtype != DType::Int32)
    fail(n, std::string("inputs are ") + dtype_name(t[0]->dtype) + "; Range of int64 or int32 is supported");
  if (t[2]->at(0) == 0) fail(n, "input 'delta' is 0");
  return t;
}

int64_t range_count(const Node& n, const std::vector<const Tensor*>& t) {
  const double start = t[0]->at(0), limit = t[1]->at(0), delta = t[2]->at(0);
  double c;
  if (t[0]->dtype == DType::Float32) {
    c = std::ceil((static_cast<double>(static_cast<float>(limit)) - start) / delta);
  } else {
    const int64_t s = t[0]->i64[0], l = t[1]->i64[0], dl = t[2]->i64[0];
    const int64_t span = l - s;
    const int64_t count = span / dl + ((span % dl != 0 && ((span < 0) == (dl < 0))) ? 1 : 0);  // ceil
    c = static_cast<double>(count);
  }
  if (!(c < static_cast<double>(1 << 30))) fail(n, "would make " + std::to_string(c) + " elements");
  return std::max<int64_t>(0, static_cast<int64_t>(c));
}

OpDef range_op() {
  OpDef d;
  d.name = "Range";
  d.versions = {11};
  d.infer = [](Graph& g, const Node& n) {
    const auto t = range_inputs(g, n);
    rules::set_out(g, n, 0, t[0]->dtype, {range_count(n, t)});
  };
  d.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>&) {
    const auto t = range_inputs(g, n);
    const int64_t c = range_count(n, t);
    if (t[0]->dtype == DType::Float32) {
      std::vector<float> v;
      for (int64_t i = 0; i < c; ++i)
        v.push_back(static_cast<float>(t[0]->f32[0] + static_cast<float>(i) * t[2]->f32[0]));
      return Tensor::floats({c}, std::move(v));
    }
    std::vector<int64_t> v;
    for (int64_t i = 0; i < c; ++i) v.push_back(t[0]->i64[0] + i * t[2]->i64[0]);
    return Tensor::ints({c}, std::move(v), t[0]->dtype);
  };
  return d;
}

// ConstantOfShape's value: the importer keeps a tensor attribute as its serialized TensorProto.
Tensor fill_value(const Node& n) {
  if (!n.has("value")) return Tensor::floats({1}, {0.0f});
  Tensor t = import_onnx_tensor(n.attr_string("value", ""), n.describe() + ": attribute 'value'");
  if (t.size() != 1) fail(n, "attribute 'value' must hold one element");
  return t;
}

OpDef constant_of_shape() {
  OpDef d;
  d.name = "ConstantOfShape";
  d.versions = {9, 20, 21};
  d.attributes = {"value"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    fill_value(n);
    return std::nullopt;
  };
  d.infer = [](Graph& g, const Node& n) {
    const std::vector<int64_t> shape = rules::constant_ints(g, n, 0, "input");
    if (element_count(shape) == 0)
      fail(n, "shape " + rules::ints_text(shape) + " has no elements; a compiled model holds no empty tensors");
    rules::set_out(g, n, 0, fill_value(n).dtype, Shape(shape.begin(), shape.end()));
  };
  d.fold = [](const Graph& g, const Node& n, const std::vector<const Tensor*>&) {
    Tensor t = fill_value(n);
    t.shape = g.value(n.outputs.at(0)).shape;
    const int64_t count = element_count(t.shape);
    const Tensor one = t;
    t.f32.clear(), t.f64.clear(), t.i64.clear();
    for (int64_t i = 0; i < count; ++i) t.append(one, 0);
    return t;
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
  ops.push_back(size_op());
  ops.push_back(range_op());
  ops.push_back(constant_of_shape());
}

}  // namespace tf::graph

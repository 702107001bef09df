#include "graph/ops/rules.h"

#include "compiler/error.h"

namespace tf::graph::rules {

void fail(const Node& n, const std::string& why) { throw CompileError(n.describe() + ": " + why); }

std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

const Value& in(const Graph& g, const Node& n, size_t i) {
  if (!g.input_present(n, i)) fail(n, "input " + std::to_string(i) + " is missing");
  return g.input_of(n, i);
}

void set_out(Graph& g, const Node& n, size_t i, DType t, Shape s) {
  if (i >= n.outputs.size() || n.outputs[i].empty()) return;
  for (int64_t d : s) {
    if (d < 0) fail(n, "output " + std::to_string(i) + " would have a negative extent " + shape_str(s));
  }
  Value& v = g.has_value(n.outputs[i]) ? g.value(n.outputs[i]) : g.set_value(Value{n.outputs[i], t, {}, nullptr});
  v.dtype = t;
  v.shape = std::move(s);
}

void same_as_input(Graph& g, const Node& n) { set_out(g, n, 0, in(g, n, 0).dtype, in(g, n, 0).shape); }

void require_rank(const Node& n, const Value& v, size_t rank, const std::string& what) {
  if (v.shape.size() != rank) {
    fail(n, what + " '" + v.name + "' has shape " + shape_str(v.shape) + "; rank " + std::to_string(rank) + " is supported");
  }
}

std::vector<int64_t> constant_ints(const Graph& g, const Node& n, size_t i, const std::string& what) {
  const Tensor* t = g.input_present(n, i) ? g.constant(n.inputs[i]) : nullptr;
  if (!t) fail(n, "input '" + what + "' must be a constant: tunefarm plans static shapes");
  if (t->dtype != DType::Int64) fail(n, "input '" + what + "' must be int64");
  return t->i64;
}

void input_to_attribute(Graph& g, Node& n, size_t i, const std::string& attr) {
  if (g.input_present(n, i)) {
    if (n.has(attr)) fail(n, "'" + attr + "' is given both as attribute and as input " + std::to_string(i));
    n.attrs[attr] = constant_ints(g, n, i, attr);
  }
  if (n.inputs.size() > i) n.inputs.resize(i);
}

void attribute_to_input(Graph& g, Node& n, const std::string& attr, size_t i) {
  if (!n.has(attr)) return;
  const float v = static_cast<float>(n.attr_float(attr, 0));
  n.attrs.erase(attr);
  if (n.inputs.size() <= i) n.inputs.resize(i + 1);
  n.inputs[i] = add_constant(g, n.name + "_" + attr, Tensor::floats({}, {v}));
}

std::string add_constant(Graph& g, const std::string& stem, Tensor t) {
  const std::string name = g.unique_name(stem);
  Value v{name, t.dtype, t.shape, nullptr};
  v.data = std::make_shared<const Tensor>(std::move(t));
  g.set_value(std::move(v));
  return name;
}

Node helper_node(Graph& g, const std::string& op, std::vector<std::string> inputs, const std::string& stem) {
  Node h;
  h.op = op;
  h.inputs = std::move(inputs);
  const std::string out = g.unique_name(stem);
  g.set_value(Value{out, DType::Float32, {}, nullptr});
  h.name = out;
  h.outputs = {out};
  return h;
}

std::optional<std::string> extra_output(const Node& n, size_t count, const std::string& what) {
  for (size_t i = count; i < n.outputs.size(); ++i) {
    if (!n.outputs[i].empty()) return "output " + std::to_string(i) + " (" + what + ") is not supported";
  }
  return std::nullopt;
}

}  // namespace tf::graph::rules

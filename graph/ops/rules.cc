#include "graph/ops/rules.h"

#include "compiler/error.h"
#include "graph/ops/registry.h"

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

void require_float32(const Graph& g, const Node& n, const std::string& kernel) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!g.input_present(n, i)) continue;
    const Value& v = g.input_of(n, i);
    if (v.dtype != DType::Float32)
      fail(n, "input " + std::to_string(i) + " ('" + v.name + "') is " + dtype_name(v.dtype) + "; " + kernel +
                  " takes float32");
  }
}

void same_as_input(Graph& g, const Node& n) { set_out(g, n, 0, in(g, n, 0).dtype, in(g, n, 0).shape); }

void require_rank(const Node& n, const Value& v, size_t rank, const std::string& what) {
  if (v.shape.size() != rank) {
    fail(n, what + " '" + v.name + "' has shape " + shape_str(v.shape) + "; rank " + std::to_string(rank) +
                " is supported");
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
  std::string name = g.unique_name(stem);
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

void old_attributes(OpDef& d, const std::vector<std::string>& attrs, int until) {
  d.attributes.insert(d.attributes.end(), attrs.begin(), attrs.end());
  d.check = [attrs, until, check = d.check](const Node& n, const OpVersion& v) -> std::optional<std::string> {
    if (v.since >= until) {
      for (const auto& a : attrs) {
        if (n.has(a))
          return "attribute '" + a + "' is not in " + n.op + " version " + std::to_string(v.since) + " (only before " +
                 std::to_string(until) + ")";
      }
    }
    return check ? check(n, v) : std::nullopt;
  };
}

void ignore_consumed_inputs(OpDef& d) {
  old_attributes(d, {"consumed_inputs"}, 6);
  d.normalize = [normalize = d.normalize](Graph& g, Node n, const OpVersion& v) {
    n.attrs.erase("consumed_inputs");
    return normalize ? normalize(g, std::move(n), v) : std::vector<Node>{std::move(n)};
  };
}

std::string reshape_to(Graph& g, const std::string& value, const Shape& to, std::vector<Node>& nodes) {
  if (const Tensor* t = g.constant(value)) {
    Tensor r = *t;
    r.shape = to;
    return add_constant(g, value + "_reshaped", std::move(r));
  }
  const std::string shape = add_constant(g, value + "_shape", Tensor::ints({static_cast<int64_t>(to.size())}, to));
  nodes.push_back(helper_node(g, "Reshape", {value, shape}, value + "_reshaped"));
  nodes.back().attrs["allowzero"] = int64_t{1};
  return nodes.back().outputs[0];
}

std::optional<std::string> extra_output(const Node& n, size_t count, const std::string& what) {
  for (size_t i = count; i < n.outputs.size(); ++i) {
    if (!n.outputs[i].empty()) return "output " + std::to_string(i) + " (" + what + ") is not supported";
  }
  return std::nullopt;
}

}  // namespace tf::graph::rules

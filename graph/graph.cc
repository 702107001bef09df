#include "graph/graph.h"

#include <algorithm>
#include <set>

#include "compiler/error.h"
#include "compiler/ops/operator.h"

namespace tf::graph {

int64_t element_count(const Shape& s) { return ops::element_count(s); }

std::string shape_str(const Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

Tensor Tensor::floats(Shape shape, std::vector<float> data) {
  Tensor t;
  t.dtype = DType::Float32;
  t.shape = std::move(shape);
  t.f32 = std::move(data);
  return t;
}

Tensor Tensor::doubles(Shape shape, std::vector<double> data) {
  Tensor t;
  t.dtype = DType::Float64;
  t.shape = std::move(shape);
  t.f64 = std::move(data);
  return t;
}

void Tensor::append(const Tensor& src, int64_t from, int64_t count) {
  if (src.dtype != dtype)
    throw CompileError(std::string("a ") + dtype_name(dtype) + " tensor appended " + dtype_name(src.dtype) +
                       " elements");
  if (dtype == DType::Float32)
    f32.insert(f32.end(), src.f32.begin() + from, src.f32.begin() + from + count);
  else if (dtype == DType::Float64)
    f64.insert(f64.end(), src.f64.begin() + from, src.f64.begin() + from + count);
  else
    i64.insert(i64.end(), src.i64.begin() + from, src.i64.begin() + from + count);
}

void Tensor::append_value(double v) {
  if (dtype == DType::Float32)
    f32.push_back(static_cast<float>(v));
  else if (dtype == DType::Float64)
    f64.push_back(v);
  else if (dtype == DType::Bool)
    i64.push_back(v != 0);
  else
    i64.push_back(static_cast<int64_t>(v));
}

void Tensor::resize_elements(int64_t n) {
  if (dtype == DType::Float32)
    f32.resize(n);
  else if (dtype == DType::Float64)
    f64.resize(n);
  else
    i64.resize(n);
}

void Tensor::set(int64_t e, const Tensor& src, int64_t from) {
  if (dtype == DType::Float32)
    f32[e] = src.f32[from];
  else if (dtype == DType::Float64)
    f64[e] = src.f64[from];
  else
    i64[e] = src.i64[from];
}

Tensor Tensor::ints(Shape shape, std::vector<int64_t> data, DType dtype) {
  if (dtype == DType::Float32 || dtype == DType::Float64)
    throw CompileError(std::string("Tensor::ints: ") + dtype_name(dtype) +
                       " data belongs in Tensor::floats or Tensor::doubles");
  for (int64_t v : data) {
    if (dtype == DType::Bool && v != 0 && v != 1)
      throw CompileError("bool tensor: value " + std::to_string(v) + " is neither 0 nor 1");
    if (dtype != DType::Int64 && (v < dtype_min(dtype) || v > dtype_max(dtype)))
      throw CompileError(std::string(dtype_name(dtype)) + " tensor: value " + std::to_string(v) + " is out of range");
  }
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.i64 = std::move(data);
  return t;
}

namespace {

template <typename T>
const T* get_attr(const Node& n, const std::string& attr, const char* kind) {
  auto it = n.attrs.find(attr);
  if (it == n.attrs.end()) return nullptr;
  if (const T* v = std::get_if<T>(&it->second)) return v;
  throw CompileError(n.describe() + ": attribute '" + attr + "' is not " + kind);
}

}  // namespace

int64_t Node::attr_int(const std::string& attr, int64_t fallback) const {
  const int64_t* v = get_attr<int64_t>(*this, attr, "an integer");
  return v ? *v : fallback;
}

double Node::attr_float(const std::string& attr, double fallback) const {
  auto it = attrs.find(attr);
  if (it != attrs.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  }
  const double* v = get_attr<double>(*this, attr, "a number");
  return v ? *v : fallback;
}

std::string Node::attr_string(const std::string& attr, const std::string& fallback) const {
  const std::string* v = get_attr<std::string>(*this, attr, "a string");
  return v ? *v : fallback;
}

std::vector<int64_t> Node::attr_ints(const std::string& attr, const std::vector<int64_t>& fallback) const {
  const auto* v = get_attr<std::vector<int64_t>>(*this, attr, "a list of integers");
  return v ? *v : fallback;
}

std::string Node::describe() const { return "node '" + name + "' (" + op + ")"; }

Value& Graph::set_value(Value v) {
  std::string name = v.name;
  return values_[name] = std::move(v);
}

Value& Graph::set_constant(const std::string& name, Tensor t) {
  Value v{name, t.dtype, t.shape, nullptr};
  v.data = std::make_shared<const Tensor>(std::move(t));
  return set_value(std::move(v));
}

const Value& Graph::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw CompileError("graph: no value named '" + name + "'");
  return it->second;
}

Value& Graph::value(const std::string& name) {
  auto it = values_.find(name);
  if (it == values_.end()) throw CompileError("graph: no value named '" + name + "'");
  return it->second;
}

const Value& Graph::input_of(const Node& n, size_t i) const {
  if (i >= n.inputs.size()) {
    throw CompileError(n.describe() + ": input " + std::to_string(i) + " is missing (the node has " +
                       std::to_string(n.inputs.size()) + ")");
  }
  return value(n.inputs[i]);
}

const Value& Graph::output_of(const Node& n, size_t i) const {
  if (i >= n.outputs.size()) {
    throw CompileError(n.describe() + ": output " + std::to_string(i) + " is missing (the node has " +
                       std::to_string(n.outputs.size()) + ")");
  }
  return value(n.outputs[i]);
}

const Tensor* Graph::constant(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : it->second.data.get();
}

std::optional<double> Graph::scalar_constant(const std::string& name) const {
  const Tensor* t = name.empty() ? nullptr : constant(name);
  if (!t || t->size() != 1) return std::nullopt;
  return t->at(0);
}

bool Graph::is_output(const std::string& value) const {
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

int Graph::use_count(const std::string& value) const {
  int uses = is_output(value) ? 1 : 0;
  for (const auto& n : nodes) uses += static_cast<int>(std::count(n.inputs.begin(), n.inputs.end(), value));
  return uses;
}

std::vector<size_t> Graph::consumers(const std::string& value) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (std::find(nodes[i].inputs.begin(), nodes[i].inputs.end(), value) != nodes[i].inputs.end()) out.push_back(i);
  }
  return out;
}

int Graph::producer(const std::string& value) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (std::find(nodes[i].outputs.begin(), nodes[i].outputs.end(), value) != nodes[i].outputs.end())
      return static_cast<int>(i);
  }
  return -1;
}

std::string Graph::unique_name(const std::string& stem) const {
  std::set<std::string> node_names;
  for (const auto& n : nodes) node_names.insert(n.name);
  if (!values_.count(stem) && !node_names.count(stem)) return stem;
  for (int i = 1;; ++i) {
    std::string name = stem + "_" + std::to_string(i);
    if (!values_.count(name) && !node_names.count(name)) return name;
  }
}

void Graph::sort_topologically() {
  std::set<std::string> defined;
  for (const auto& [name, v] : values_) {
    if (v.is_constant()) defined.insert(name);
  }
  defined.insert(inputs.begin(), inputs.end());
  std::vector<Node> ordered;
  std::vector<bool> placed(nodes.size(), false);
  // Kahn's algorithm by repeated sweeps: graphs are a few thousand nodes at most, and a sweep keeps
  // the original order among nodes that are ready together.
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (placed[i]) continue;
      const bool ready = std::all_of(nodes[i].inputs.begin(), nodes[i].inputs.end(),
                                     [&](const std::string& in) { return in.empty() || defined.count(in); });
      if (!ready) continue;
      placed[i] = true;
      progress = true;
      defined.insert(nodes[i].outputs.begin(), nodes[i].outputs.end());
      ordered.push_back(nodes[i]);
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (placed[i]) continue;
    std::set<std::string> produced;
    for (const auto& n : nodes) produced.insert(n.outputs.begin(), n.outputs.end());
    for (const auto& in : nodes[i].inputs) {
      if (!in.empty() && !defined.count(in) && !produced.count(in)) {
        throw CompileError(nodes[i].describe() + " reads '" + in + "', which no node, input or initializer defines");
      }
    }
    throw CompileError(nodes[i].describe() + " is on a cycle");
  }
  nodes = std::move(ordered);
}

void Graph::remove_unused_values() {
  std::set<std::string> used(inputs.begin(), inputs.end());
  used.insert(outputs.begin(), outputs.end());
  for (const auto& n : nodes) {
    used.insert(n.inputs.begin(), n.inputs.end());
    used.insert(n.outputs.begin(), n.outputs.end());
  }
  for (auto it = values_.begin(); it != values_.end();) {
    it = used.count(it->first) ? std::next(it) : values_.erase(it);
  }
}

void Graph::remove_dead_nodes() {
  std::set<std::string> live(outputs.begin(), outputs.end());
  std::vector<bool> keep(nodes.size(), false);
  for (size_t i = nodes.size(); i-- > 0;) {
    keep[i] = std::any_of(nodes[i].outputs.begin(), nodes[i].outputs.end(),
                          [&](const std::string& o) { return live.count(o); });
    if (keep[i]) live.insert(nodes[i].inputs.begin(), nodes[i].inputs.end());
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(nodes[i]));
  }
  nodes = std::move(kept);
  remove_unused_values();
}

void Graph::check() const {
  std::set<std::string> defined(inputs.begin(), inputs.end());
  for (const auto& [name, v] : values_) {
    if (v.is_constant()) {
      defined.insert(name);
      if (v.data->size() != element_count(v.shape))
        throw CompileError("graph: constant '" + name + "' has data of another shape");
    }
  }
  for (const auto& in : inputs) value(in);
  for (const auto& n : nodes) {
    for (const auto& in : n.inputs) {
      if (!in.empty() && !defined.count(in))
        throw CompileError(n.describe() + " reads '" + in + "' before it is defined");
    }
    for (const auto& out : n.outputs) {
      if (defined.count(out)) throw CompileError(n.describe() + " writes '" + out + "', which is already defined");
      value(out);
      defined.insert(out);
    }
  }
  for (const auto& out : outputs) {
    if (!defined.count(out)) throw CompileError("graph: output '" + out + "' is never defined");
  }
}

std::map<std::string, int> count_ops(const Graph& g) {
  std::map<std::string, int> counts;
  for (const auto& n : g.nodes) ++counts[n.op];
  return counts;
}

}  // namespace tf::graph

#include "graph/onnx_inputs.h"

#include <map>
#include <optional>
#include <set>

#include "compiler/error.h"

namespace tf::graph::onnx_import {
namespace {

// The flags that bind extents, named in every message so that the user knows what to type.
constexpr const char* kShapeFlag = "--input-shape";
constexpr const char* kBatchFlag = "--batch";

// One extent as the model declares it: static when value > 0, else symbolic under `param`.
struct Declared {
  int64_t value = 0;
  std::string param;
  bool is_static() const { return value > 0; }
};

// Where a symbolic name got its value, for the message when another binding disagrees.
struct SymbolBinding {
  int64_t value;
  std::string input;
  int index;
};
using Symbols = std::map<std::string, SymbolBinding>;

bool has_shape(const onnx::ValueInfoProto& v) {
  return v.type().has_tensor_type() && v.type().tensor_type().has_shape();
}

std::vector<Declared> declared_dims(const onnx::ValueInfoProto& v) {
  std::vector<Declared> out;
  for (const auto& d : v.type().tensor_type().shape().dim())
    out.push_back({d.has_dim_value() ? d.dim_value() : 0, d.dim_param()});
  return out;
}

std::string quoted_param(const std::string& param) { return param.empty() ? "unnamed" : "'" + param + "'"; }

std::string list_text(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out;
}

std::string extent_text(int index, const std::string& param) {
  return std::to_string(index) + " (" + quoted_param(param) + ")";
}

std::string input_prefix(const onnx::ValueInfoProto& v, const std::string& what) {
  return what + ": input '" + v.name() + "' " + dims_text(v);
}

// The model's inputs: graph inputs that no initializer defines (IR version 3 lists weights there).
std::vector<const onnx::ValueInfoProto*> model_inputs(const onnx::GraphProto& graph) {
  std::set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& in : graph.input()) {
    if (!initializers.count(in.name())) out.push_back(&in);
  }
  return out;
}

void check_names(const std::vector<const onnx::ValueInfoProto*>& inputs, const ImportOptions& options,
                 const std::string& what) {
  std::set<std::string> names;
  for (const auto* v : inputs) names.insert(v->name());
  for (const auto& [name, shape] : options.input_shapes) {
    if (names.count(name)) continue;
    std::string list;
    for (const auto* v : inputs) list += (list.empty() ? "'" : ", '") + v->name() + "'";
    throw CompileError(what + ": " + kShapeFlag + " names '" + name +
                       "', which is not an input of the model (its inputs: " + (list.empty() ? "none" : list) + ")");
  }
}

void bind_symbol(Symbols& symbols, const std::string& param, const SymbolBinding& b, const std::string& prefix) {
  if (param.empty()) return;  // an unnamed extent binds nothing elsewhere
  auto [it, fresh] = symbols.emplace(param, b);
  if (fresh || it->second.value == b.value) return;
  throw CompileError(prefix + ": extent " + extent_text(b.index, param) + " is given as " + std::to_string(b.value) +
                     ", but " + kShapeFlag + " binds '" + param + "' to " + std::to_string(it->second.value) +
                     " at extent " + std::to_string(it->second.index) + " of input '" + it->second.input + "'");
}

// A full shape given for `v`: positive, of the declared rank, equal to every static extent, and
// to --batch on a symbolic extent 0 when both are given. Records the symbolic names it binds.
void check_given(const onnx::ValueInfoProto& v, const Shape& given, const ImportOptions& options, Symbols& symbols,
                 const std::string& what) {
  const std::string prefix = input_prefix(v, what);
  const std::string flag = std::string(kShapeFlag) + " " + v.name() + "=" + list_text(given);
  if (given.empty()) throw CompileError(prefix + ": " + kShapeFlag + " " + v.name() + "= gives no extents");
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i] <= 0) throw CompileError(prefix + ": " + flag + ": extent " + std::to_string(i) + " must be positive");
  }
  if (!has_shape(v)) return;  // the model leaves the shape to whoever runs it
  const std::vector<Declared> dims = declared_dims(v);
  if (dims.size() != given.size()) {
    throw CompileError(prefix + ": " + flag + " has " + std::to_string(given.size()) + " extents, the model declares " +
                       std::to_string(dims.size()));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    const int index = static_cast<int>(i);
    if (dims[i].is_static()) {
      if (dims[i].value != given[i]) {
        throw CompileError(prefix + ": extent " + std::to_string(i) + " is " + std::to_string(dims[i].value) +
                           " in the model, " + flag + " gives " + std::to_string(given[i]));
      }
      continue;
    }
    if (i == 0 && options.batch && *options.batch != given[0]) {
      throw CompileError(prefix + ": " + kBatchFlag + " " + std::to_string(*options.batch) + " and " + flag +
                         " disagree on extent " + extent_text(0, dims[0].param));
    }
    bind_symbol(symbols, dims[i].param, {given[i], v.name(), index}, prefix);
  }
}

// The shape of an input not given in full: static extents, symbolic names bound by given shapes,
// and the batch for extent 0. What stays symbolic is an error that spells out the flag to type.
Shape resolve(const onnx::ValueInfoProto& v, int64_t batch, const Symbols& symbols, const std::string& what) {
  const std::string prefix = input_prefix(v, what);
  if (!has_shape(v)) {
    throw CompileError(prefix + " has no shape: tunefarm plans static shapes; give it with " + kShapeFlag + " " +
                       v.name() + "=...");
  }
  const std::vector<Declared> dims = declared_dims(v);
  Shape shape;
  std::vector<std::string> template_dims, unbound;
  for (size_t i = 0; i < dims.size(); ++i) {
    std::optional<int64_t> value;
    if (dims[i].is_static())
      value = dims[i].value;
    else if (auto it = symbols.find(dims[i].param); !dims[i].param.empty() && it != symbols.end())
      value = it->second.value;
    else if (i == 0)
      value = batch;
    if (value) {
      shape.push_back(*value);
      template_dims.push_back(std::to_string(*value));
    } else {
      unbound.push_back(extent_text(static_cast<int>(i), dims[i].param));
      template_dims.push_back(dims[i].param.empty() ? "?" : dims[i].param);
    }
  }
  if (unbound.empty()) return shape;
  std::string extents, value;
  for (size_t i = 0; i < unbound.size(); ++i)
    extents += (i == 0 ? "" : i + 1 == unbound.size() ? " and " : ", ") + unbound[i];
  for (size_t i = 0; i < template_dims.size(); ++i) value += (i ? "," : "") + template_dims[i];
  const bool one = unbound.size() == 1;
  throw CompileError(prefix + ": extent" + (one ? " " : "s ") + extents + (one ? " is" : " are") + " symbolic; bind " +
                     (one ? "it" : "them") + " with " + kShapeFlag + " " + v.name() + "=" + value);
}

// The options checked against the model; the symbolic names the given shapes bind.
Symbols given_symbols(const std::vector<const onnx::ValueInfoProto*>& inputs, const ImportOptions& options,
                      const std::string& what) {
  if (options.batch && *options.batch <= 0) {
    throw CompileError(what + ": batch " + std::to_string(*options.batch) + " must be positive");
  }
  check_names(inputs, options, what);
  Symbols symbols;
  for (const auto* v : inputs) {
    if (!v->type().has_tensor_type()) throw CompileError(what + ": input '" + v->name() + "' is not a tensor");
    if (auto it = options.input_shapes.find(v->name()); it != options.input_shapes.end())
      check_given(*v, it->second, options, symbols, what);
  }
  return symbols;
}

}  // namespace

std::string dims_text(const onnx::ValueInfoProto& v) {
  if (!has_shape(v)) return "?";
  std::string s = "[";
  const auto& dims = v.type().tensor_type().shape().dim();
  for (int i = 0; i < dims.size(); ++i) {
    s += i ? "," : "";
    s += dims[i].has_dim_value()       ? std::to_string(dims[i].dim_value())
         : dims[i].dim_param().empty() ? "?"
                                       : dims[i].dim_param();
  }
  return s + "]";
}

std::vector<SymbolicExtent> symbolic_extents(const onnx::ValueInfoProto& v) {
  std::vector<SymbolicExtent> out;
  if (!has_shape(v)) return out;
  const std::vector<Declared> dims = declared_dims(v);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].is_static()) out.push_back({static_cast<int>(i), dims[i].param});
  }
  return out;
}

void check_input_options(const onnx::GraphProto& graph, const ImportOptions& options, const std::string& what) {
  given_symbols(model_inputs(graph), options, what);
}

std::vector<BoundInput> bind_inputs(const onnx::GraphProto& graph, const ImportOptions& options,
                                    const std::string& what) {
  const auto inputs = model_inputs(graph);
  const Symbols symbols = given_symbols(inputs, options, what);
  std::vector<BoundInput> out;
  for (const auto* v : inputs) {
    auto it = options.input_shapes.find(v->name());
    out.push_back(
        {v, it != options.input_shapes.end() ? it->second : resolve(*v, options.batch.value_or(1), symbols, what)});
  }
  return out;
}

}  // namespace tf::graph::onnx_import

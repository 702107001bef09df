#include "graph/onnx_import.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/error.h"
#include "graph/constant_eval.h"
#include "graph/onnx_inputs.h"
#include "graph/onnx_nodes.h"
#include "graph/shape_inference.h"
#include "support/files.h"

namespace tf::graph {
namespace {

using onnx_import::dims_text;
using onnx_import::where;

// Constants folded at import are shape arithmetic and small weights; a broadcast that would make
// more elements than this is a malformed file, not a model.
constexpr int64_t kMaxElements = int64_t{1} << 31;

std::string read_model_file(const std::string& path) {
  errno = 0;
  std::optional<std::string> bytes = try_read_file(path);
  if (!bytes) throw CompileError(path + ": cannot open: " + std::strerror(errno));
  return std::move(*bytes);
}

onnx::ModelProto parse_model(const std::string& bytes, const std::string& what) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes))
    throw CompileError(what + ": not an ONNX model (the protobuf does not parse)");
  if (!model.has_graph() || model.graph().node_size() == 0)
    throw CompileError(what + ": not an ONNX model (no graph, or a graph without nodes)");
  return model;
}

int64_t default_opset(const onnx::ModelProto& model, const std::string& what) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      if (o.version() < kMinOpset || o.version() > kMaxOpset) {
        throw CompileError(what + ": opset " + std::to_string(o.version()) + " is not supported (opsets " +
                           std::to_string(kMinOpset) + "-" + std::to_string(kMaxOpset) + ")");
      }
      return o.version();
    }
  }
  throw CompileError(what + ": the model imports no opset of the default ONNX domain");
}

std::string dtype_text(int32_t elem_type) {
  return onnx::TensorProto::DataType_IsValid(elem_type)
             ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elem_type))
             : "unknown";
}

// The element types tensors of a model may hold here; nullopt for the others (float16, strings...).
std::optional<DType> dtype_of(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return DType::Float32;
    case onnx::TensorProto::INT64: return DType::Int64;
    case onnx::TensorProto::INT32: return DType::Int32;
    case onnx::TensorProto::BOOL: return DType::Bool;
    case onnx::TensorProto::DOUBLE: return DType::Float64;
    case onnx::TensorProto::INT8: return DType::Int8;
    case onnx::TensorProto::UINT8: return DType::UInt8;
    default: return std::nullopt;
  }
}

Shape checked_dims(const google::protobuf::RepeatedField<int64_t>& dims, const std::string& what) {
  Shape s;
  double total = 1;
  for (int64_t d : dims) {
    if (d < 0) throw CompileError(what + ": negative extent " + std::to_string(d));
    // A zero extent is skipped: an empty tensor of extents [2^40, 2^40, 0] would still overflow
    // every element count multiplied in order.
    if (d != 0) total *= static_cast<double>(d);
    s.push_back(d);
  }
  if (total > static_cast<double>(kMaxElements)) {
    // The count may be beyond any integer type: printed as the double it was computed in.
    std::ostringstream msg;
    msg << what << ": " << total << " elements is too many (at most " << kMaxElements << ")";
    throw CompileError(msg.str());
  }
  return s;
}

template <typename T>
std::vector<T> raw_values(const std::string& raw, int64_t count, const std::string& what) {
  if (raw.size() != static_cast<size_t>(count) * sizeof(T)) {
    throw CompileError(what + ": raw data has " + std::to_string(raw.size()) + " bytes for " + std::to_string(count) +
                       " elements");
  }
  std::vector<T> v(count);
  if (count > 0)
    std::memcpy(v.data(), raw.data(), raw.size());  // ONNX raw data is little-endian, as is every host we build for
  return v;
}

Tensor convert_tensor(const onnx::TensorProto& t, const std::string& what) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw CompileError(what + ": external data is not supported (save the model with its weights inside)");
  const Shape shape = checked_dims(t.dims(), what);
  const int64_t count = element_count(shape);
  auto check_count = [&](int64_t n) {
    if (n != count) throw CompileError(what + ": " + std::to_string(n) + " values for shape " + shape_str(shape));
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT: {
      std::vector<float> v = t.has_raw_data() ? raw_values<float>(t.raw_data(), count, what)
                                              : std::vector<float>(t.float_data().begin(), t.float_data().end());
      check_count(static_cast<int64_t>(v.size()));
      return Tensor::floats(shape, std::move(v));
    }
    case onnx::TensorProto::DOUBLE: {
      std::vector<double> v = t.has_raw_data() ? raw_values<double>(t.raw_data(), count, what)
                                               : std::vector<double>(t.double_data().begin(), t.double_data().end());
      check_count(static_cast<int64_t>(v.size()));
      return Tensor::doubles(shape, std::move(v));
    }
    case onnx::TensorProto::INT64: {
      std::vector<int64_t> v = t.has_raw_data() ? raw_values<int64_t>(t.raw_data(), count, what)
                                                : std::vector<int64_t>(t.int64_data().begin(), t.int64_data().end());
      check_count(static_cast<int64_t>(v.size()));
      return Tensor::ints(shape, std::move(v));
    }
    case onnx::TensorProto::INT32: {
      std::vector<int32_t> v32 = t.has_raw_data() ? raw_values<int32_t>(t.raw_data(), count, what)
                                                  : std::vector<int32_t>(t.int32_data().begin(), t.int32_data().end());
      check_count(static_cast<int64_t>(v32.size()));
      return Tensor::ints(shape, std::vector<int64_t>(v32.begin(), v32.end()), DType::Int32);
    }
    case onnx::TensorProto::BOOL: {  // one byte per element in raw data, else one int32 each
      std::vector<int64_t> v;
      if (t.has_raw_data()) {
        for (uint8_t b : raw_values<uint8_t>(t.raw_data(), count, what)) v.push_back(b != 0);
      } else {
        for (int32_t b : t.int32_data()) v.push_back(b != 0);
      }
      check_count(static_cast<int64_t>(v.size()));
      return Tensor::ints(shape, std::move(v), DType::Bool);
    }
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8: {  // one byte per element in raw data, else one int32 each
      const DType dtype = t.data_type() == onnx::TensorProto::INT8 ? DType::Int8 : DType::UInt8;
      std::vector<int64_t> v;
      if (t.has_raw_data() && dtype == DType::Int8) {
        for (int8_t b : raw_values<int8_t>(t.raw_data(), count, what)) v.push_back(b);
      } else if (t.has_raw_data()) {
        for (uint8_t b : raw_values<uint8_t>(t.raw_data(), count, what)) v.push_back(b);
      } else {
        v.assign(t.int32_data().begin(), t.int32_data().end());
      }
      check_count(static_cast<int64_t>(v.size()));
      return Tensor::ints(shape, std::move(v), dtype);  // refuses an int32_data value out of range
    }
    default:
      throw CompileError(what + ": dtype " + dtype_text(t.data_type()) +
                         " is not supported (float32, float64, int64, int32, int8, uint8, bool)");
  }
}

Value constant_value(const std::string& name, Tensor t) {
  Value v{name, t.dtype, t.shape, nullptr};
  v.data = std::make_shared<const Tensor>(std::move(t));
  return v;
}

Tensor constant_attribute(const onnx::NodeProto& p, const std::string& what) {
  for (const auto& a : p.attribute()) {
    if (a.name() == "value") return convert_tensor(a.t(), what + ": attribute 'value'");
    if (a.name() == "value_float") return Tensor::floats({}, {a.f()});
    if (a.name() == "value_floats")
      return Tensor::floats({a.floats_size()}, std::vector<float>(a.floats().begin(), a.floats().end()));
    if (a.name() == "value_int") return Tensor::ints({}, {a.i()});
    if (a.name() == "value_ints")
      return Tensor::ints({a.ints_size()}, std::vector<int64_t>(a.ints().begin(), a.ints().end()));
  }
  throw CompileError(what + ": no value");
}

// A model input with its shape bound (onnx_inputs.cc).
Value input_value(const onnx_import::BoundInput& in, const std::string& what) {
  const onnx::ValueInfoProto& v = *in.info;
  const std::string w = what + ": input '" + v.name() + "'";
  const int32_t elem_type = v.type().tensor_type().elem_type();
  const std::optional<DType> dtype = dtype_of(elem_type);
  if (!dtype)
    throw CompileError(w + ": dtype " + dtype_text(elem_type) +
                       " is not supported (float32, int64, int32, bool, float64, int8, uint8)");
  return Value{v.name(), *dtype,
               checked_dims(google::protobuf::RepeatedField<int64_t>(in.shape.begin(), in.shape.end()), w), nullptr};
}

std::string node_name(const onnx::NodeProto& p, int index) {
  return p.name().empty() ? p.op_type() + "_" + std::to_string(index) : p.name();
}

std::vector<std::string> refusals(const onnx::GraphProto& graph, int64_t opset) {
  std::vector<std::string> out;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& p = graph.node(i);
    const std::string name = node_name(p, i);
    OpVersion version;
    if (auto why = onnx_import::refuse_node(p, onnx_import::convert_node(p, name), opset, &version))
      out.push_back(where(name, p.op_type(), opset) + ": " + *why);
  }
  return out;
}

Graph build_graph(const onnx::ModelProto& model, int64_t opset, const ImportOptions& options, const std::string& what) {
  const auto& gp = model.graph();
  Graph g;
  for (const auto& init : gp.initializer())
    g.set_value(constant_value(init.name(), convert_tensor(init, what + ": initializer '" + init.name() + "'")));
  for (const auto& in : onnx_import::bind_inputs(gp, options, what)) {
    g.set_value(input_value(in, what));
    g.inputs.push_back(in.info->name());
  }
  for (const auto& out : gp.output()) g.outputs.push_back(out.name());
  std::set<std::string> written;
  for (int i = 0; i < gp.node_size(); ++i) {
    const auto& p = gp.node(i);
    const std::string name = node_name(p, i);
    const std::string prefix = what + ": " + where(name, p.op_type(), opset);
    for (const auto& out : p.output()) {
      if (!out.empty() && (!written.insert(out).second || g.has_value(out)))
        throw CompileError(prefix + ": output '" + out + "' is written twice");
    }
    if (p.op_type() == "Constant") {
      g.set_value(constant_value(p.output(0), constant_attribute(p, prefix)));
      continue;
    }
    g.nodes.push_back(onnx_import::convert_node(p, name));
  }
  try {
    g.sort_topologically();
  } catch (const CompileError& e) {
    throw CompileError(what + " (opset " + std::to_string(opset) + "): " + e.what());
  }
  std::vector<Node> kept;
  std::map<std::string, std::string> alias;  // an Identity's output -> its input
  // A node's normalized form, its shapes inferred in order; the nodes of an op that expands into
  // other ONNX ops (OpDef::expands) are imported in turn, as if the model had written them.
  std::function<void(Node)> admit = [&](Node node) {
    const OpVersion version{opset, onnx_since_version(node.op, opset)};
    const OpDef* def = find_op_def(node.op);
    const bool expands = def && def->expands;
    for (Node& n : onnx_import::normalize_node(g, std::move(node), version)) {
      if (expands) {
        admit(std::move(n));
        continue;
      }
      infer_node_shapes(g, n);
      if (n.op == "Identity" && !g.is_output(n.outputs[0])) {
        alias[n.outputs[0]] = n.inputs[0];
        continue;
      }
      if (!dequantizes_int8_weight(g, n) && fold_if_constant(g, n)) continue;
      kept.push_back(std::move(n));
    }
  };
  for (Node& imported : g.nodes) {
    for (auto& in : imported.inputs) {
      if (auto it = alias.find(in); it != alias.end()) in = it->second;
    }
    try {
      admit(std::move(imported));
    } catch (const CompileError& e) {
      throw CompileError(what + " (opset " + std::to_string(opset) + "): " + e.what());
    }
  }
  g.nodes = std::move(kept);
  for (const auto& out : g.outputs) {
    if (g.sequences.count(out))
      throw CompileError(what + ": output '" + out + "' is a sequence; a compiled model's outputs are tensors");
    if (!g.has_value(out)) throw CompileError(what + ": output '" + out + "' is never computed");
  }
  g.sequences.clear();
  g.remove_dead_nodes();
  g.check();
  return g;
}

}  // namespace

OnnxSummary summarize_onnx_file(const std::string& path, const ImportOptions& options) {
  const onnx::ModelProto model = parse_model(read_model_file(path), path);
  OnnxSummary s;
  s.opset = default_opset(model, path);
  s.producer = model.producer_name() + (model.producer_version().empty() ? "" : " " + model.producer_version());
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  auto info = [](const onnx::ValueInfoProto& v) {
    const int32_t t = v.type().has_tensor_type() ? v.type().tensor_type().elem_type() : 0;
    const std::optional<DType> dtype = dtype_of(t);
    return OnnxSummary::Tensor{
        v.name(), dtype ? dtype_name(*dtype) : dtype_text(t), dims_text(v), onnx_import::symbolic_extents(v), {}};
  };
  for (const auto& in : model.graph().input()) {
    if (!initializers.count(in.name())) s.inputs.push_back(info(in));
  }
  onnx_import::check_input_options(model.graph(), options, path);
  try {
    const auto bound = onnx_import::bind_inputs(model.graph(), options, path);
    for (size_t i = 0; i < bound.size() && i < s.inputs.size(); ++i) s.inputs[i].bound = bound[i].shape;
  } catch (const CompileError& e) {
    s.binding_error = e.what();
  }
  for (const auto& out : model.graph().output()) s.outputs.push_back(info(out));
  for (const auto& n : model.graph().node()) ++s.ops[n.op_type()];
  s.unsupported = refusals(model.graph(), s.opset);
  return s;
}

Graph import_onnx_bytes(const std::string& bytes, const std::string& what, const ImportOptions& options) {
  const onnx::ModelProto model = parse_model(bytes, what);
  const int64_t opset = default_opset(model, what);
  const auto refused = refusals(model.graph(), opset);
  if (!refused.empty()) {
    std::string msg =
        what + ": " + std::to_string(refused.size()) + " unsupported node" + (refused.size() > 1 ? "s" : "") + ": ";
    for (size_t i = 0; i < refused.size(); ++i) msg += (i ? "; " : "") + refused[i];
    throw CompileError(msg);
  }
  return build_graph(model, opset, options, what);
}

Tensor import_onnx_tensor(const std::string& bytes, const std::string& what) {
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) throw CompileError(what + ": not an ONNX tensor (the protobuf does not parse)");
  return convert_tensor(t, what);
}

Graph import_onnx_file(const std::string& path, const ImportOptions& options) {
  return import_onnx_bytes(read_model_file(path), path, options);
}

}  // namespace tf::graph

#include "compiler/ops/registry.h"

#include <algorithm>
#include <memory>
#include <sstream>

#include "compiler/codegen/abi_dtype.h"
#include "compiler/error.h"
#include "support/workload_key.h"

namespace tf::ops {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_dense_operators(reg);
    register_conv2d_operators(reg);
    register_conv3d_operators(reg);
    register_conv3d_transpose_operators(reg);
    register_model_operators(reg);
    register_conv2d_nchwc_operators(reg);
    register_conv2d_transpose_operators(reg);
    register_resize_operators(reg);
    register_qdense_operators(reg);
    return reg;
  }();
  return r;
}

// Tensors beyond this many bytes in total are refused before anything is allocated: no board has
// the memory, and the extents are surely a typo.
constexpr double kMaxWorkloadBytes = 16.0 * (1 << 30);

}  // namespace

std::string Workload::str() const { return workload_key(op, shape); }

Scheduled make_scheduled(const std::vector<te::Tensor>& inputs, const te::Tensor& output) {
  Scheduled result;
  for (const te::Tensor& t : inputs) {
    if (t.op()) result.inputs.push_back(t);
  }
  result.outputs = {output};
  result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
  return result;
}

const Operator& find_operator(const std::string& name) {
  for (const auto& op : registry().all()) {
    if (op->name() == name) return *op;
  }
  std::string known;
  for (const auto& op : registry().all()) known += (known.empty() ? "" : ", ") + op->name();
  throw CompileError("unknown op '" + name + "' (known ops: " + known + ")");
}

bool has_operator(const std::string& name) {
  for (const auto& op : registry().all()) {
    if (op->name() == name) return true;
  }
  return false;
}

std::vector<std::string> operator_names() {
  std::vector<std::string> names;
  for (const auto& op : registry().all()) names.push_back(op->name());
  return names;
}

void check_workload(const Workload& w) { check_workload(find_operator(w.op), w.shape); }

void check_workload(const Operator& op, const std::vector<int64_t>& shape) {
  const Workload w{op.name(), shape};
  const auto names = op.shape_names();
  const std::string expected = join(names);
  if (w.shape.size() != names.size()) {
    throw CompileError("op '" + w.op + "' takes shape " + expected + " (" + std::to_string(names.size()) +
                       " extents), got " + std::to_string(w.shape.size()));
  }
  op.check_shape(w.shape);
  double bytes = 0;
  auto count = [&](const std::vector<int64_t>& s) {
    double n = 4;
    for (int64_t d : s) n *= static_cast<double>(d);
    bytes += n;
  };
  for (const auto& s : op.input_shapes(w.shape)) count(s);
  count(op.output_shape(w.shape));
  if (bytes > kMaxWorkloadBytes) {
    throw CompileError("workload " + w.str() + " needs " + std::to_string(static_cast<int64_t>(bytes / (1 << 30))) +
                       " GiB of tensors; the limit is 16 GiB");
  }
}

void append_numbered_names(std::vector<std::string>* names, const std::string& prefix, int count) {
  for (int k = 0; k < count; ++k) names->push_back(prefix + std::to_string(k));
}

void reject_unknown_extents(const Operator& op, const std::map<std::string, int64_t>& named,
                            const std::string& extents) {
  const auto names = op.shape_names();
  for (const auto& [name, value] : named) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw CompileError("op '" + op.name() + "': unknown extent '" + name +
                         "' (extents: " + (extents.empty() ? join(names) : extents) + ")");
    }
  }
}

std::vector<int64_t> Operator::shape_from_named(const std::map<std::string, int64_t>& named) const {
  reject_unknown_extents(*this, named);
  const auto names = shape_names();
  std::vector<int64_t> shape;
  for (const auto& n : names) {
    auto it = named.find(n);
    if (it == named.end())
      throw CompileError("op '" + this->name() + "': extent " + n + "= is missing (extents: " + join(names) + ")");
    shape.push_back(it->second);
  }
  return shape;
}

runtime::FillRange Operator::input_range(const std::vector<int64_t>&, int, ir::DataType type) const {
  return runtime::default_fill_range(codegen::abi_dtype_code(type), type.bits);
}

void Operator::check_shape(const std::vector<int64_t>& shape) const {
  const auto names = shape_names();
  for (size_t i = 0; i < names.size() && i < shape.size(); ++i) {
    if (shape[i] <= 0) {
      throw CompileError("op '" + name() + "': extent " + names[i] + " = " + std::to_string(shape[i]) +
                         " must be positive");
    }
    if (shape[i] > (int64_t{1} << 31)) {
      throw CompileError("op '" + name() + "': extent " + names[i] + " = " + std::to_string(shape[i]) +
                         " is absurdly large");
    }
  }
}

std::string Operator::shape_text(const std::vector<int64_t>& shape) const {
  std::string t;
  for (int64_t d : shape) t += (t.empty() ? "" : ",") + std::to_string(d);
  return t;
}

std::vector<int64_t> parse_shape(const std::string& op_name, const std::string& text) {
  const Operator& op = find_operator(op_name);
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  if (parts.empty()) throw CompileError("op '" + op_name + "': empty shape (extents: " + join(op.shape_names()) + ")");
  auto integer = [&](const std::string& what, const std::string& digits) {
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(digits, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != digits.size()) {
      throw CompileError("op '" + op_name + "': shape '" + text + "': " + what + " '" + digits + "' is not an integer");
    }
    return v;
  };
  const bool named = text.find('=') != std::string::npos;
  if (!named) {
    std::vector<int64_t> shape;
    shape.reserve(parts.size());
    for (const auto& p : parts) shape.push_back(integer("extent", p));
    return shape;
  }
  std::map<std::string, int64_t> values;
  for (const auto& p : parts) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw CompileError("op '" + op_name + "': shape '" + text + "': '" + p +
                         "' is not NAME=VALUE (give every extent by name, or none)");
    }
    const std::string name = p.substr(0, eq);
    if (values.count(name))
      throw CompileError("op '" + op_name + "': shape '" + text + "': " + name + "= is given twice");
    values[name] = integer(name, p.substr(eq + 1));
  }
  return op.shape_from_named(values);
}

int64_t element_count(const std::vector<int64_t>& extents) {
  int64_t n = 1;
  for (int64_t d : extents) n *= d;
  return n;
}

}  // namespace tf::ops

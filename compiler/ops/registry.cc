#include "compiler/ops/registry.h"

#include "compiler/error.h"
#include "support/workload_key.h"

namespace tf::ops {
namespace {

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_dense_operators(reg);
    return reg;
  }();
  return r;
}

// Tensors beyond this many bytes in total are refused before anything is allocated: no board has
// the memory, and the extents are surely a typo.
constexpr double kMaxWorkloadBytes = 16.0 * (1 << 30);

}  // namespace

std::string Workload::str() const { return workload_key(op, shape); }

const Operator& find_operator(const std::string& name) {
  for (const auto& op : registry().all()) {
    if (op->name() == name) return *op;
  }
  std::string known;
  for (const auto& op : registry().all()) known += (known.empty() ? "" : ", ") + op->name();
  throw CompileError("unknown op '" + name + "' (known ops: " + known + ")");
}

std::vector<std::string> operator_names() {
  std::vector<std::string> names;
  for (const auto& op : registry().all()) names.push_back(op->name());
  return names;
}

void check_workload(const Workload& w) {
  const Operator& op = find_operator(w.op);
  auto names = op.shape_names();
  std::string expected;
  for (const auto& n : names) expected += (expected.empty() ? "" : ",") + n;
  if (w.shape.size() != names.size()) {
    throw CompileError("op '" + w.op + "' takes shape " + expected + " (" + std::to_string(names.size()) +
                       " extents), got " + std::to_string(w.shape.size()));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (w.shape[i] <= 0) {
      throw CompileError("op '" + w.op + "': extent " + names[i] + " = " + std::to_string(w.shape[i]) + " must be positive");
    }
    if (w.shape[i] > (int64_t{1} << 31)) {
      throw CompileError("op '" + w.op + "': extent " + names[i] + " = " + std::to_string(w.shape[i]) + " is absurdly large");
    }
  }
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

}  // namespace tf::ops

// HannWindow, HammingWindow, BlackmanWindow (opset 17): the window of `size` points as the sum of
// cosines a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1
// (symmetric). The size is a constant (shapes are static), so the window is too: it is folded when
// the model is built and never runs as a kernel.
#include <cmath>

#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using rules::fail;

struct Cosines {
  double a0, a1, a2;
};

// The window's length: input 0, an int32 or int64 scalar constant of at least 1.
int64_t window_size(const Graph& g, const Node& n) {
  const Value& size = rules::in(g, n, 0);
  if (size.dtype != DType::Int64 && size.dtype != DType::Int32)
    fail(n, std::string("input 'size' is ") + dtype_name(size.dtype) + "; int32 or int64 is required");
  const Tensor* t = g.constant(n.inputs[0]);
  if (!t) fail(n, "input 'size' must be a constant: tunefarm plans static shapes");
  if (t->size() != 1) fail(n, "input 'size' has shape " + shape_str(t->shape) + "; a scalar is required");
  const int64_t count = t->i64[0];
  if (count < 1)
    fail(n, "input 'size' = " + std::to_string(count) + " is not positive; a compiled model holds no empty tensors");
  if (count > (int64_t{1} << 26)) fail(n, "input 'size' = " + std::to_string(count) + " is beyond 2^26 points");
  return count;
}

Tensor window(const Node& n, int64_t size, const Cosines& c) {
  const bool periodic = n.attr_int("periodic", 1) != 0;
  // A symmetric window of one point divides by zero in ONNX's formula too: its one value is the
  // formula's at n = 0, which no division reaches.
  const double span = static_cast<double>(periodic || size == 1 ? size : size - 1);
  std::vector<float> v(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    const double angle = 2 * M_PI * static_cast<double>(i) / span;
    v[static_cast<size_t>(i)] = static_cast<float>(c.a0 - c.a1 * std::cos(angle) + c.a2 * std::cos(2 * angle));
  }
  return Tensor::floats({size}, std::move(v));
}

OpDef window_function(const std::string& name, Cosines c) {
  OpDef d;
  d.name = name;
  d.versions = {17};
  d.attributes = {"output_datatype", "periodic"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    const int64_t dtype = n.attr_int("output_datatype", 1);
    if (dtype != 1)
      return "attribute 'output_datatype' = " + std::to_string(dtype) + " (" + onnx_dtype_name(dtype) +
             ") is not supported (FLOAT only)";
    const int64_t periodic = n.attr_int("periodic", 1);
    if (periodic != 0 && periodic != 1) return "attribute 'periodic' = " + std::to_string(periodic) + " is not 0 or 1";
    return std::nullopt;
  };
  d.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, DType::Float32, {window_size(g, n)}); };
  d.fold = [c](const Graph& g, const Node& n, const std::vector<const Tensor*>&) {
    return window(n, window_size(g, n), c);
  };
  return d;
}

}  // namespace

void add_window_function_ops(std::vector<OpDef>& ops) {
  ops.push_back(window_function("HannWindow", {0.5, 0.5, 0}));
  ops.push_back(window_function("HammingWindow", {25.0 / 46, 21.0 / 46, 0}));
  ops.push_back(window_function("BlackmanWindow", {0.42, 0.5, 0.08}));
}

}  // namespace tf::graph

// Cast between the element types models compute in here (float32, float64, int64, int32, int8,
// uint8, bool), as ONNX defines it: a float to an integer truncates toward zero (into int8 or uint8
// saturating, where ONNX leaves it undefined), an integer to a narrower one keeps its low bits,
// anything to bool is x != 0, a bool is 0 or 1. A cast to the input's own type is an alias; any
// other is an elementwise kernel, folded when its input is a constant. Other types (float16,
// strings, 16-bit integers) are refused naming the type.
#include <algorithm>
#include <cmath>
#include <optional>

#include "graph/ops/elementwise.h"
#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using rules::fail;

// ONNX's TensorProto codes of the types a cast may target.
std::optional<DType> castable(int64_t onnx_type) {
  switch (onnx_type) {
    case 1: return DType::Float32;   // FLOAT
    case 6: return DType::Int32;     // INT32
    case 7: return DType::Int64;     // INT64
    case 9: return DType::Bool;      // BOOL
    case 11: return DType::Float64;  // DOUBLE
    case 2: return DType::UInt8;     // UINT8
    case 3: return DType::Int8;      // INT8
    default: return std::nullopt;
  }
}

DType target(const Node& n) { return dtype_from_name(n.attr_string("to", "float32")).value_or(DType::Float32); }

bool is_byte(DType t) { return t == DType::Int8 || t == DType::UInt8; }

// An integer in a narrower integer type: its low bits, as C and NumPy convert.
int64_t wrap(int64_t v, DType to) {
  if (to == DType::Int32) return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (to == DType::Int8) return static_cast<int8_t>(static_cast<uint8_t>(v));
  if (to == DType::UInt8) return static_cast<uint8_t>(v);
  return v;
}

int64_t to_integer(const Node& n, double v, DType to) {
  // A float into a byte saturates (ONNX leaves it undefined; the kernel clamps the same way).
  if (is_byte(to))
    return static_cast<int64_t>(std::trunc(
        std::clamp(std::isnan(v) ? 0.0 : v, static_cast<double>(dtype_min(to)), static_cast<double>(dtype_max(to)))));
  if (!(std::fabs(v) < 9.2e18)) fail(n, "a constant's value " + std::to_string(v) + " does not fit " + dtype_name(to));
  return wrap(static_cast<int64_t>(std::trunc(v)), to);  // int32 wraps as C's does
}

Tensor cast_tensor(const Node& n, const Tensor& x, DType to) {
  if (x.dtype == to) return x;
  Tensor t;
  t.dtype = to;
  t.shape = x.shape;
  const bool from_int = !x.is_float();
  for (int64_t i = 0; i < x.size(); ++i) {
    // An int64 is converted once, to the target float type (never through float32 to float64).
    if (to == DType::Float32)
      t.f32.push_back(from_int ? static_cast<float>(x.i64[i]) : static_cast<float>(x.at(i)));
    else if (to == DType::Float64)
      t.f64.push_back(from_int ? static_cast<double>(x.i64[i]) : x.at(i));
    else if (to == DType::Bool)
      t.i64.push_back(from_int ? x.i64[i] != 0 : x.at(i) != 0);  // NaN is true
    else if (from_int)
      t.i64.push_back(wrap(x.i64[i], to));
    else
      t.i64.push_back(to_integer(n, x.at(i), to));
  }
  return t;
}

OpDef cast_op() {
  OpDef d;
  d.name = "Cast";
  d.versions = {6, 9, 13, 19, 21};
  d.attributes = {"to", "saturate"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    const int64_t to = n.attr_int("to", 0);
    if (!castable(to))
      return "attribute 'to' = " + onnx_dtype_name(to) +
             " is not supported (float32, float64, int64, int32, int8, uint8, bool)";
    return std::nullopt;
  };
  // Canonical: 'to' as the dtype's name; 'saturate' only concerns float8 targets.
  d.normalize = [](Graph&, Node n, const OpVersion&) {
    n.attrs["to"] = std::string(dtype_name(*castable(n.attr_int("to", 1))));
    n.attrs.erase("saturate");
    return std::vector<Node>{std::move(n)};
  };
  d.infer = [](Graph& g, const Node& n) { rules::set_out(g, n, 0, target(n), rules::in(g, n, 0).shape); };
  d.fold = [](const Graph&, const Node& n, const std::vector<const Tensor*>& inputs) {
    return cast_tensor(n, *inputs.at(0), target(n));
  };
  d.expression = [](ElementwiseArgs& args, const Graph& scope, const Node& n) {
    ops::ElementwiseExprPtr x = args.value(n.inputs.at(0));
    const DType to = target(n);
    const DType from = scope.input_of(n, 0).dtype;
    if (is_byte(to) &&
        (from == DType::Float32 || from == DType::Float64)) {  // saturate: a float beyond the byte converts to poison
      x = ops::ew_binary(ops::ElementwiseKind::Max, x, ops::ew_constant(static_cast<double>(dtype_min(to))));
      x = ops::ew_binary(ops::ElementwiseKind::Min, x, ops::ew_constant(static_cast<double>(dtype_max(to))));
    }
    return ops::ew_cast(x, to);
  };
  d.lower = [](const Graph& g, const Node& n) {
    if (g.input_of(n, 0).dtype == target(n)) return lowering::alias(n.inputs.at(0));
    return elementwise::lower(g, n);
  };
  return d;
}

}  // namespace

void add_cast_ops(std::vector<OpDef>& ops) { ops.push_back(cast_op()); }

}  // namespace tf::graph

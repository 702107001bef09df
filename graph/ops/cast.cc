// Cast between the element types models compute in here (float32, float64, int64, int32, bool), as ONNX
// defines it: a float to an integer truncates toward zero, anything to bool is x != 0, a bool is 0
// or 1. A cast to the input's own type is an alias; any other is an elementwise kernel, folded
// when its input is a constant. Other types (float16, strings, 8- and 16-bit integers)
// are refused naming the type.
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
    default: return std::nullopt;
  }
}

DType target(const Node& n) { return dtype_from_name(n.attr_string("to", "float32")).value_or(DType::Float32); }

int64_t to_integer(const Node& n, double v, DType to) {
  if (!(std::fabs(v) < 9.2e18)) fail(n, "a constant's value " + std::to_string(v) + " does not fit " + dtype_name(to));
  const auto r = static_cast<int64_t>(std::trunc(v));
  return to == DType::Int32 ? static_cast<int32_t>(static_cast<uint32_t>(r)) : r;  // int32 wraps as C's does
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
      t.i64.push_back(to == DType::Int32 ? static_cast<int32_t>(static_cast<uint32_t>(x.i64[i])) : x.i64[i]);
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
      return "attribute 'to' = " + onnx_dtype_name(to) + " is not supported (float32, float64, int64, int32, bool)";
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
  d.expression = [](ElementwiseArgs& args, const Graph&, const Node& n) {
    return ops::ew_cast(args.value(n.inputs.at(0)), target(n));
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

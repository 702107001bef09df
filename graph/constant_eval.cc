#include "graph/constant_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "compiler/error.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

[[noreturn]] void fail(const Node& n, const std::string& why) { throw CompileError(n.describe() + ": " + why); }

const std::set<std::string>& elementwise_ops() {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow", "Relu", "Clip", "Sigmoid", "Erf", "Tanh", "Sqrt", "Identity"};
  return ops;
}

// Row-major strides of `shape`, with 0 for broadcast dimensions when seen from `out` (right-aligned).
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    const size_t o = i + out.size() - shape.size();
    strides[o] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

// Calls f(out_index, {input offsets}) for every element of `out`.
template <typename F>
void for_each_broadcast(const Shape& out, const std::vector<Shape>& ins, F f) {
  std::vector<std::vector<int64_t>> strides;
  for (const auto& s : ins) strides.push_back(broadcast_strides(s, out));
  const int64_t total = element_count(out);
  std::vector<int64_t> idx(out.size(), 0), offs(ins.size(), 0);
  for (int64_t e = 0; e < total; ++e) {
    f(e, offs);
    for (size_t d = out.size(); d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < ins.size(); ++k) offs[k] += strides[k][d];
      if (idx[d] < out[d]) break;
      for (size_t k = 0; k < ins.size(); ++k) offs[k] -= strides[k][d] * out[d];
      idx[d] = 0;
    }
  }
}

double apply(const std::string& op, double a, double b, double c) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  if (op == "Pow") return std::pow(a, b);
  if (op == "Relu") return a > 0 ? a : 0;
  if (op == "Clip") return std::min(std::max(a, b), c);
  if (op == "Sigmoid") return 1 / (1 + std::exp(-a));
  if (op == "Erf") return std::erf(a);
  if (op == "Tanh") return std::tanh(a);
  if (op == "Sqrt") return std::sqrt(a);
  return a;  // Identity
}

int64_t apply_int(const Node& n, int64_t a, int64_t b) {
  if (n.op == "Add") return a + b;
  if (n.op == "Sub") return a - b;
  if (n.op == "Mul") return a * b;
  if (n.op == "Div") {
    if (b == 0) fail(n, "integer division by zero in a constant");
    return a / b;
  }
  if (n.op == "Relu") return std::max<int64_t>(a, 0);
  if (n.op == "Identity") return a;
  fail(n, "int64 " + n.op + " is not supported");
}

Tensor cast(const Tensor& x, DType to) {
  if (x.dtype == to) return x;
  Tensor t;
  t.dtype = to;
  t.shape = x.shape;
  if (to == DType::Float32) {
    for (int64_t v : x.i64) t.f32.push_back(static_cast<float>(v));
  } else {
    for (float v : x.f32) t.i64.push_back(static_cast<int64_t>(v));
  }
  return t;
}

Tensor with_shape(Tensor t, const Shape& s) {
  t.shape = s;
  return t;
}

Tensor concat(const Node& n, const std::vector<const Tensor*>& ins, const Shape& out_shape) {
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(out_shape.size()), n, "axis");
  const int64_t outer = element_count(Shape(out_shape.begin(), out_shape.begin() + axis));
  Tensor t;
  t.dtype = ins[0]->dtype;
  t.shape = out_shape;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* x : ins) {
      const int64_t chunk = element_count(Shape(x->shape.begin() + axis, x->shape.end()));
      if (x->dtype == DType::Float32) t.f32.insert(t.f32.end(), x->f32.begin() + o * chunk, x->f32.begin() + (o + 1) * chunk);
      else t.i64.insert(t.i64.end(), x->i64.begin() + o * chunk, x->i64.begin() + (o + 1) * chunk);
    }
  }
  return t;
}

Tensor gather(const Node& n, const Tensor& data, const Tensor& indices, const Shape& out_shape) {
  if (indices.dtype != DType::Int64) fail(n, "indices must be int64");
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(data.shape.size()), n, "axis");
  const int64_t outer = element_count(Shape(data.shape.begin(), data.shape.begin() + axis));
  const int64_t inner = element_count(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  const int64_t extent = data.shape[axis];
  Tensor t;
  t.dtype = data.dtype;
  t.shape = out_shape;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : indices.i64) {
      const int64_t j = i < 0 ? i + extent : i;
      if (j < 0 || j >= extent) fail(n, "index " + std::to_string(i) + " is out of range for extent " + std::to_string(extent));
      const int64_t from = (o * extent + j) * inner;
      if (data.dtype == DType::Float32) t.f32.insert(t.f32.end(), data.f32.begin() + from, data.f32.begin() + from + inner);
      else t.i64.insert(t.i64.end(), data.i64.begin() + from, data.i64.begin() + from + inner);
    }
  }
  return t;
}

}  // namespace

bool is_elementwise(const std::string& op) { return elementwise_ops().count(op) != 0; }

bool is_constant_foldable(const std::string& op) {
  static const std::set<std::string> shape_ops = {"Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Cast", "Reshape", "Flatten", "Transpose"};
  return is_elementwise(op) || shape_ops.count(op) != 0;
}

// Each present input must hold the elements its shape claims, in the dtype the operation reads,
// and broadcast to the output: a model can say otherwise, and the evaluator indexes by the shape.
static void check_elementwise_inputs(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape) {
  const bool ints = inputs[0]->dtype == DType::Int64;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* t = inputs[i];
    if (!t) continue;
    const std::string which = "input " + std::to_string(i);
    const size_t held = t->dtype == DType::Float32 ? t->f32.size() : t->i64.size();
    if (static_cast<int64_t>(held) != t->size()) fail(n, which + " holds " + std::to_string(held) + " elements, its shape " + std::to_string(t->size()));
    if (ints && i < 2 && t->dtype != DType::Int64) fail(n, which + " is not int64 like input 0");
    if (t->shape.size() > out_shape.size()) fail(n, which + " has more dimensions than the output");
    for (size_t d = 0; d < t->shape.size(); ++d) {
      const int64_t have = t->shape[d], want = out_shape[d + out_shape.size() - t->shape.size()];
      if (have != 1 && have != want) fail(n, which + " does not broadcast to the output's shape");
    }
  }
}

Tensor evaluate_elementwise(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape) {
  check_elementwise_inputs(n, inputs, out_shape);
  std::vector<Shape> shapes;
  for (const Tensor* t : inputs) shapes.push_back(t ? t->shape : Shape{});
  const bool ints = inputs[0]->dtype == DType::Int64;
  Tensor out;
  out.dtype = inputs[0]->dtype;
  out.shape = out_shape;
  if (ints) out.i64.resize(element_count(out_shape));
  else out.f32.resize(element_count(out_shape));
  const double lowest = -std::numeric_limits<double>::infinity(), highest = std::numeric_limits<double>::infinity();
  for_each_broadcast(out_shape, shapes, [&](int64_t e, const std::vector<int64_t>& offs) {
    auto arg = [&](size_t i, double fallback) { return i < inputs.size() && inputs[i] ? inputs[i]->at(offs[i]) : fallback; };
    if (ints) {
      out.i64[e] = apply_int(n, inputs[0]->i64[offs[0]], inputs.size() > 1 && inputs[1] ? inputs[1]->i64[offs[1]] : 0);
    } else {
      out.f32[e] = static_cast<float>(apply(n.op, arg(0, 0), arg(1, n.op == "Clip" ? lowest : 0), arg(2, highest)));
    }
  });
  return out;
}

Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  const size_t rank = x.shape.size();
  Shape out_shape(rank);
  for (size_t i = 0; i < rank; ++i) out_shape[i] = x.shape[perm[i]];
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * x.shape[i];
  Shape permuted_strides(rank);
  for (size_t i = 0; i < rank; ++i) permuted_strides[i] = in_strides[perm[i]];
  Tensor t;
  t.dtype = x.dtype;
  t.shape = out_shape;
  const int64_t total = element_count(out_shape);
  if (x.dtype == DType::Float32) t.f32.resize(total);
  else t.i64.resize(total);
  std::vector<int64_t> idx(rank, 0);
  int64_t from = 0;
  for (int64_t e = 0; e < total; ++e) {
    if (x.dtype == DType::Float32) t.f32[e] = x.f32[from];
    else t.i64[e] = x.i64[from];
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      from += permuted_strides[d];
      if (idx[d] < out_shape[d]) break;
      from -= permuted_strides[d] * out_shape[d];
      idx[d] = 0;
    }
  }
  return t;
}

std::vector<Tensor> evaluate_constant_node(const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
  if (!is_constant_foldable(n.op)) fail(n, "cannot be evaluated at planning time");
  if (n.outputs.size() != 1) fail(n, "a folded node has one output");
  const Shape& out_shape = g.value(n.outputs[0]).shape;
  if (n.op == "Shape") {
    const Shape& s = g.input_of(n, 0).shape;
    const int64_t rank = static_cast<int64_t>(s.size());
    auto clamp = [&](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank); };
    const int64_t start = clamp(n.attr_int("start", 0)), end = clamp(n.attr_int("end", rank));
    return {Tensor::ints(out_shape, std::vector<int64_t>(s.begin() + start, s.begin() + std::max(start, end)))};
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i] && g.input_present(n, i)) fail(n, "input " + std::to_string(i) + " is not a constant");
  }
  if (inputs.empty() || !inputs[0]) fail(n, "input 0 is missing");
  if (is_elementwise(n.op)) return {evaluate_elementwise(n, inputs, out_shape)};
  if (n.op == "Cast") return {with_shape(cast(*inputs[0], g.value(n.outputs[0]).dtype), out_shape)};
  if (n.op == "Reshape" || n.op == "Flatten" || n.op == "Unsqueeze" || n.op == "Squeeze") return {with_shape(*inputs[0], out_shape)};
  if (n.op == "Transpose") {
    std::vector<int64_t> perm = n.attr_ints("perm", {});
    if (perm.empty()) {
      for (int64_t i = static_cast<int64_t>(inputs[0]->shape.size()) - 1; i >= 0; --i) perm.push_back(i);
    }
    return {transpose(*inputs[0], perm)};
  }
  if (n.op == "Concat") return {concat(n, inputs, out_shape)};
  return {gather(n, *inputs[0], *inputs[1], out_shape)};  // Gather
}

bool fold_if_constant(Graph& g, const Node& n) {
  constexpr int64_t kMaxElements = int64_t{1} << 31;
  if (!is_constant_foldable(n.op) || n.outputs.size() != 1 || g.is_output(n.outputs[0])) return false;
  std::vector<const Tensor*> inputs;
  for (const auto& name : n.inputs) {
    const Tensor* t = name.empty() ? nullptr : g.constant(name);
    if (!t && !name.empty() && n.op != "Shape") return false;
    inputs.push_back(t);
  }
  const Value& out = g.value(n.outputs[0]);
  if (element_count(out.shape) > kMaxElements) return false;
  auto results = evaluate_constant_node(g, n, inputs);
  Value folded{out.name, results[0].dtype, results[0].shape, nullptr};
  folded.data = std::make_shared<const Tensor>(std::move(results[0]));
  g.set_value(std::move(folded));
  return true;
}

}  // namespace tf::graph

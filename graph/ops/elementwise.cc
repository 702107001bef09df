#include "graph/ops/elementwise.h"

#include <algorithm>
#include <map>

#include "compiler/error.h"
#include "compiler/ops/elementwise.h"
#include "graph/ops/lowering.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph::elementwise {
namespace {

using rules::fail;

std::optional<double> scalar_of(const Graph& g, const std::string& value) {
  const Tensor* t = value.empty() ? nullptr : g.constant(value);
  if (!t || t->size() != 1) return std::nullopt;
  return t->at(0);
}

// The expressions of a chain of elementwise nodes. Inputs that are scalar constants in the outer
// graph become literals; every other input is a kernel argument, numbered in order.
class ExpressionBuilder : public ElementwiseArgs {
 public:
  explicit ExpressionBuilder(const Graph& outer) : outer_(outer) {}

  ops::ElementwiseExprPtr value(const std::string& name) override {
    if (auto it = exprs_.find(name); it != exprs_.end()) return it->second;
    if (auto c = scalar_of(outer_, name)) return exprs_[name] = ops::ew_constant(*c);
    const int index = static_cast<int>(args_.size());
    args_.push_back(name);
    return exprs_[name] = ops::ew_input(index);
  }
  std::optional<double> scalar_constant(const std::string& name) const override { return scalar_of(outer_, name); }

  void add(const Graph& scope, const Node& n) {
    const OpDef* def = find_op_def(n.op);
    if (!def || !def->expression) fail(n, "op " + n.op + " has no elementwise kernel");
    exprs_[n.outputs.at(0)] = def->expression(*this, scope, n);
  }
  const std::vector<std::string>& args() const { return args_; }

 private:
  const Graph& outer_;
  std::map<std::string, ops::ElementwiseExprPtr> exprs_;
  std::vector<std::string> args_;
};

// The expression with its inputs numbered in the order its text first reads them (pre-order, left
// to right), and `args` permuted to match: the compiled kernel takes its arguments in that order,
// so a chain whose later node reads an earlier value second (w - x * y) would otherwise run on
// swapped operands.
ops::ElementwiseExprPtr renumber(const ops::ElementwiseExprPtr& e, std::map<int, int>& order) {
  using K = ops::ElementwiseKind;
  switch (e->kind) {
    case K::Input: {
      auto [it, fresh] = order.try_emplace(e->input, static_cast<int>(order.size()));
      return ops::ew_input(it->second);
    }
    case K::Constant: return e;
    case K::Pow: return ops::ew_pow(renumber(e->args.at(0), order), e->value);
    case K::Clip: return ops::ew_clip(renumber(e->args.at(0), order), e->value, e->value2);
    default: break;
  }
  if (e->args.size() == 1) return ops::ew_unary(e->kind, renumber(e->args[0], order));
  auto a = renumber(e->args.at(0), order);
  auto b = renumber(e->args.at(1), order);
  return ops::ew_binary(e->kind, a, b);
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

// Each present input must hold the elements its shape claims, in the dtype the operation reads,
// and broadcast to the output: a model can say otherwise, and the evaluator indexes by the shape.
void check_inputs(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape, const Spec& spec) {
  if (inputs.empty() || !inputs[0]) fail(n, "input 0 is missing");
  const bool ints = inputs[0]->dtype == DType::Int64;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* t = inputs[i];
    if (!t) continue;
    const std::string which = "input " + std::to_string(i);
    const size_t held = t->dtype == DType::Float32 ? t->f32.size() : t->i64.size();
    if (static_cast<int64_t>(held) != t->size()) fail(n, which + " holds " + std::to_string(held) + " elements, its shape " + std::to_string(t->size()));
    if (ints && i >= spec.defaults.size() && t->dtype != DType::Int64) fail(n, which + " is not int64 like input 0");
    if (t->shape.size() > out_shape.size()) fail(n, which + " has more dimensions than the output");
    for (size_t d = 0; d < t->shape.size(); ++d) {
      const int64_t have = t->shape[d], want = out_shape[d + out_shape.size() - t->shape.size()];
      if (have != 1 && have != want) fail(n, which + " does not broadcast to the output's shape");
    }
  }
}

void infer(const Spec& spec, Graph& g, const Node& n) {
  if (n.inputs.size() < spec.min_inputs || n.inputs.size() > spec.max_inputs) {
    fail(n, "has " + std::to_string(n.inputs.size()) + " inputs; " + spec.name + " takes " + std::to_string(spec.min_inputs) +
                (spec.max_inputs > spec.min_inputs ? " or more" : ""));
  }
  const Value& x = rules::in(g, n, 0);
  if (!spec.defaults.empty()) {
    // Optional inputs with defaults are scalars (Clip's bounds); a bound of more elements would be
    // read past its end.
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (g.input_present(n, i) && element_count(g.input_of(n, i).shape) != 1) {
        const std::string named = i < spec.input_names.size() ? " (" + spec.input_names[i] + ")" : "";
        fail(n, "input " + std::to_string(i) + named + " must be a scalar, got " + shape_str(g.input_of(n, i).shape));
      }
    }
    rules::set_out(g, n, 0, x.dtype, x.shape);
    return;
  }
  Shape out = x.shape;
  for (size_t i = 1; i < n.inputs.size(); ++i) out = broadcast_shapes(out, rules::in(g, n, i).shape, n);
  rules::set_out(g, n, 0, x.dtype, out);
}

}  // namespace

Tensor evaluate(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape, const Spec& spec) {
  check_inputs(n, inputs, out_shape, spec);
  std::vector<Shape> shapes;
  for (const Tensor* t : inputs) shapes.push_back(t ? t->shape : Shape{});
  const bool ints = inputs[0]->dtype == DType::Int64;
  if (ints && !spec.i) fail(n, "int64 " + n.op + " is not supported");
  Tensor out;
  out.dtype = inputs[0]->dtype;
  out.shape = out_shape;
  if (ints) out.i64.resize(element_count(out_shape));
  else out.f32.resize(element_count(out_shape));
  // Absent trailing optional inputs read as their defaults.
  std::vector<double> args(std::max(inputs.size(), spec.defaults.size()));
  for (size_t i = inputs.size(); i < args.size(); ++i) args[i] = spec.defaults[i];
  std::vector<int64_t> int_args(inputs.size());
  for_each_broadcast(out_shape, shapes, [&](int64_t e, const std::vector<int64_t>& offs) {
    if (ints) {
      for (size_t i = 0; i < inputs.size(); ++i) int_args[i] = inputs[i] ? inputs[i]->i64[offs[i]] : 0;
      out.i64[e] = spec.i(n, int_args);
      return;
    }
    for (size_t i = 0; i < inputs.size(); ++i) args[i] = inputs[i] ? inputs[i]->at(offs[i]) : i < spec.defaults.size() ? spec.defaults[i] : 0;
    out.f32[e] = static_cast<float>(spec.f(args));
  });
  return out;
}

NodeLowering lower(const Graph& g, const Node& n) {
  ExpressionBuilder b(g);
  if (n.op == kFusedElementwise) {
    for (const Node& inner : n.body->nodes) b.add(*n.body, inner);
  } else {
    b.add(g, n);
  }
  const Shape& out = g.output_of(n).shape;
  if (out.empty() || out.size() > 6) fail(n, "output rank " + std::to_string(out.size()) + " is outside the elementwise kernel's 1..6");
  std::map<int, int> order;  // builder's input number -> number in reading order
  ops::ElementwiseExprPtr expr = renumber(b.value(n.outputs.at(0)), order);
  std::vector<std::string> args(order.size());
  for (const auto& [built, read] : order) args[read] = b.args().at(built);
  if (args.empty()) fail(n, "computes a constant that constant folding should have removed");
  std::vector<int64_t> shape;
  for (const auto& a : args) {
    const Shape& s = g.value(a).shape;
    if (s.size() > out.size()) fail(n, "input '" + a + "' " + shape_str(s) + " has a higher rank than the output " + shape_str(out));
    shape.insert(shape.end(), out.size() - s.size(), 1);  // numpy aligns trailing axes
    shape.insert(shape.end(), s.begin(), s.end());
  }
  auto op = std::make_shared<ops::ElementwiseOperator>(expr, static_cast<int>(out.size()));
  return lowering::call(lowering::make_call(n, op, shape, lowering::with_output(args, n)));
}

OpDef make_op(const Spec& spec) {
  OpDef d;
  d.name = spec.name;
  d.versions = spec.versions;
  d.normalize = [](Graph&, Node n, const OpVersion&) { return std::vector<Node>{std::move(n)}; };
  d.infer = [spec](Graph& g, const Node& n) { infer(spec, g, n); };
  d.fold = [spec](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return evaluate(n, inputs, g.value(n.outputs.at(0)).shape, spec);
  };
  d.lower = lower;
  d.expression = spec.expression;
  d.fusion.elementwise = true;
  d.fusion.epilogue = spec.epilogue;
  return d;
}

}  // namespace tf::graph::elementwise

#include "graph/ops/elementwise.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "compiler/error.h"
#include "compiler/ops/elementwise.h"
#include "graph/ops/lowering.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph::elementwise {
namespace {

using rules::fail;

// A scalar constant as a literal of its own dtype: the expression's constants are float32, so an
// integer or bool one is a float32 literal cast to its type, exact up to 2^24, and a float64 one a
// float32 literal only when float32 holds it exactly (its kernel code makes it a float64 literal).
// Otherwise it stays a kernel argument (nullptr).
ops::ElementwiseExprPtr literal_of(const Tensor& t) {
  const double v = t.at(0);
  if (t.dtype == DType::Float32) return ops::ew_constant(v);
  if (t.dtype == DType::Float64)
    return static_cast<double>(static_cast<float>(v)) == v ? ops::ew_cast(ops::ew_constant(v), DType::Float64)
                                                           : nullptr;
  if (std::fabs(v) > double(1 << 24)) return nullptr;
  return ops::ew_cast(ops::ew_constant(v), t.dtype);
}

// The expressions of a chain of elementwise nodes. Inputs that are scalar constants in the outer
// graph become literals; every other input is a kernel argument, numbered in order.
class ExpressionBuilder : public ElementwiseArgs {
 public:
  explicit ExpressionBuilder(const Graph& outer) : outer_(outer) {}

  ops::ElementwiseExprPtr value(const std::string& name) override {
    if (auto it = exprs_.find(name); it != exprs_.end()) return it->second;
    if (outer_.scalar_constant(name)) {
      if (auto literal = literal_of(*outer_.constant(name))) return exprs_[name] = literal;
    }
    const int index = static_cast<int>(args_.size());
    args_.push_back(name);
    return exprs_[name] = ops::ew_input(index);
  }
  std::optional<double> scalar_constant(const std::string& name) const override { return outer_.scalar_constant(name); }

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
  strides.reserve(ins.size());
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
void check_inputs(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape) {
  if (inputs.empty() || !inputs[0]) fail(n, "input 0 is missing");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* t = inputs[i];
    if (!t) continue;
    const std::string which = "input " + std::to_string(i);
    const size_t held = t->held();
    if (static_cast<int64_t>(held) != t->size())
      fail(n, which + " holds " + std::to_string(held) + " elements, its shape " + std::to_string(t->size()));
    if (t->shape.size() > out_shape.size()) fail(n, which + " has more dimensions than the output");
    for (size_t d = 0; d < t->shape.size(); ++d) {
      const int64_t have = t->shape[d], want = out_shape[d + out_shape.size() - t->shape.size()];
      if (have != 1 && have != want) fail(n, which + " does not broadcast to the output's shape");
    }
  }
}

DType output_dtype(const Spec& spec, const Graph& g, const Node& n) {
  if (!spec.output_dtype) return rules::in(g, n, 0).dtype;
  std::vector<DType> in;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    in.push_back(g.input_present(n, i) ? g.input_of(n, i).dtype : DType::Float32);
  return spec.output_dtype(n, in);
}

void check_one_dtype(const Spec& spec, const Graph& g, const Node& n) {
  std::optional<size_t> first;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!g.input_present(n, i) || std::count(spec.typed_apart.begin(), spec.typed_apart.end(), i)) continue;
    if (!first) {
      first = i;
      continue;
    }
    const DType a = g.input_of(n, *first).dtype, b = g.input_of(n, i).dtype;
    if (a != b) {
      fail(n, "input " + std::to_string(i) + " is " + dtype_name(b) + " and input " + std::to_string(*first) + " " +
                  dtype_name(a) + "; " + spec.name + " takes one type for both");
    }
  }
}

void infer(const Spec& spec, Graph& g, const Node& n) {
  if (n.inputs.size() < spec.min_inputs || n.inputs.size() > spec.max_inputs) {
    fail(n, "has " + std::to_string(n.inputs.size()) + " inputs; " + spec.name + " takes " +
                std::to_string(spec.min_inputs) + (spec.max_inputs > spec.min_inputs ? " or more" : ""));
  }
  check_one_dtype(spec, g, n);
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
    rules::set_out(g, n, 0, output_dtype(spec, g, n), x.shape);
    return;
  }
  Shape out = x.shape;
  for (size_t i = 1; i < n.inputs.size(); ++i) out = broadcast_shapes(out, rules::in(g, n, i).shape, n);
  rules::set_out(g, n, 0, output_dtype(spec, g, n), out);
}

// The kernel reads each input in the dtype the graph gives it (scalar constants as literals of
// their dtype); an op computing in float32 only refuses others here, naming the input, rather than
// leaving a type error to the compiler.
void check_kernel_dtypes(const Spec& spec, const Graph& scope, const Node& n) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!scope.input_present(n, i)) continue;
    const DType t = scope.input_of(n, i).dtype;
    const bool takes = spec.kernel_takes ? spec.kernel_takes(i, t) : t == DType::Float32;
    if (!takes)
      fail(n, "input " + std::to_string(i) + " ('" + n.inputs[i] + "') is " + dtype_name(t) + "; " + n.op +
                  "'s kernel does not take it");
  }
}

// The call's extents with axes of extent 1 dropped and neighbours that every argument reads alike
// (all of it, or broadcast) merged: the same elements in fewer axes, for outputs above the
// kernel's rank. `shapes` are the arguments' extents aligned to `out`.
void merge_axes(Shape& out, std::vector<Shape>& shapes) {
  Shape o;
  std::vector<Shape> s(shapes.size());
  auto full = [&](size_t a, size_t d) { return shapes[a][d] != 1; };
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    bool alike = !o.empty();
    for (size_t a = 0; a < shapes.size() && alike; ++a) alike = (s[a].back() != 1) == full(a, d);
    if (alike) {
      o.back() *= out[d];
      for (size_t a = 0; a < shapes.size(); ++a) s[a].back() *= shapes[a][d];
      continue;
    }
    o.push_back(out[d]);
    for (size_t a = 0; a < shapes.size(); ++a) s[a].push_back(shapes[a][d]);
  }
  if (o.empty()) {
    o.push_back(1);
    for (auto& x : s) x.push_back(1);
  }
  out = std::move(o);
  shapes = std::move(s);
}

}  // namespace

Tensor evaluate(const Node& n, const std::vector<const Tensor*>& inputs, const Shape& out_shape, DType out_dtype,
                const Spec& spec) {
  check_inputs(n, inputs, out_shape);
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const Tensor* t : inputs) shapes.push_back(t ? t->shape : Shape{});
  // Integer inputs with an integer rule compute exactly (shape arithmetic); anything else in double.
  bool ints = static_cast<bool>(spec.i);
  for (const Tensor* t : inputs) ints = ints && (!t || !t->is_float());
  Tensor out;
  out.dtype = out_dtype;
  out.shape = out_shape;
  out.resize_elements(element_count(out_shape));
  // Absent trailing optional inputs read as their defaults.
  std::vector<double> args(std::max(inputs.size(), spec.defaults.size()));
  for (size_t i = inputs.size(); i < args.size(); ++i) args[i] = spec.defaults[i];
  std::vector<int64_t> int_args(inputs.size());
  for_each_broadcast(out_shape, shapes, [&](int64_t e, const std::vector<int64_t>& offs) {
    double r = 0;
    if (ints) {
      for (size_t i = 0; i < inputs.size(); ++i) int_args[i] = inputs[i] ? inputs[i]->i64[offs[i]] : 0;
      const int64_t v = spec.i(n, int_args);
      if (out_dtype != DType::Float32 && out_dtype != DType::Float64) {
        out.i64[e] = v;
        return;
      }
      r = static_cast<double>(v);
    } else {
      for (size_t i = 0; i < inputs.size(); ++i)
        args[i] = inputs[i] ? inputs[i]->at(offs[i]) : i < spec.defaults.size() ? spec.defaults[i] : 0;
      r = spec.f(args);
    }
    if (out_dtype == DType::Float32)
      out.f32[e] = static_cast<float>(r);
    else if (out_dtype == DType::Float64)
      out.f64[e] = r;
    else if (out_dtype == DType::Bool)
      out.i64[e] = r != 0;
    else if (!(std::fabs(r) < 9.2e18))
      fail(n, "a constant's result " + std::to_string(r) + " does not fit " + dtype_name(out_dtype));
    else
      out.i64[e] = static_cast<int64_t>(r);
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
  // The kernel takes x0, x1, ... in that order (ElementwiseOperator fixes it), whichever the
  // expression reads first.
  const ops::ElementwiseExprPtr expr = b.value(n.outputs.at(0));
  const std::vector<std::string>& args = b.args();
  if (args.empty()) fail(n, "computes a constant that constant folding should have removed");
  // A scalar runs as one element of rank 1 (the same bytes).
  Shape out = g.output_of(n).shape;
  if (out.empty()) out = {1};
  std::vector<Shape> aligned;
  for (const auto& a : args) {
    const Shape& s = g.value(a).shape;
    if (s.size() > out.size())
      fail(n, "input '" + a + "' " + shape_str(s) + " has a higher rank than the output " + shape_str(out));
    Shape x(out.size() - s.size(), 1);  // numpy aligns trailing axes
    x.insert(x.end(), s.begin(), s.end());
    aligned.push_back(std::move(x));
  }
  if (out.size() > 6) {
    const Shape full = out;
    merge_axes(out, aligned);
    if (out.size() > 6) {
      fail(n, "output " + shape_str(full) + " has rank " + std::to_string(full.size()) +
                  " and its inputs broadcast along " + std::to_string(out.size()) +
                  " distinct runs of axes; the elementwise kernel takes 6");
    }
  }
  std::vector<int64_t> shape;
  for (const Shape& x : aligned) shape.insert(shape.end(), x.begin(), x.end());
  std::vector<DType> arg_dtypes;
  arg_dtypes.reserve(args.size());
  for (const auto& a : args) arg_dtypes.push_back(g.value(a).dtype);
  auto op =
      std::make_shared<ops::ElementwiseOperator>(expr, static_cast<int>(out.size()), arg_dtypes, g.output_of(n).dtype);
  return lowering::call(lowering::make_call(n, op, shape, lowering::with_output(args, n)));
}

OpDef make_op(const Spec& spec) {
  OpDef d;
  d.name = spec.name;
  d.versions = spec.versions;
  d.normalize = [](Graph&, Node n, const OpVersion&) { return std::vector<Node>{std::move(n)}; };
  d.infer = [spec](Graph& g, const Node& n) { infer(spec, g, n); };
  d.fold = [spec](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    const Value& out = g.value(n.outputs.at(0));
    return evaluate(n, inputs, out.shape, out.dtype, spec);
  };
  d.lower = lower;
  d.expression = [spec](ElementwiseArgs& args, const Graph& scope, const Node& n) {
    check_kernel_dtypes(spec, scope, n);
    return spec.expression(args, scope, n);
  };
  d.fusion.elementwise = true;
  d.fusion.epilogue = spec.epilogue;
  return d;
}

}  // namespace tf::graph::elementwise

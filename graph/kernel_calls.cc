#include "graph/kernel_calls.h"

#include <cfloat>
#include <cmath>
#include <map>

#include "compiler/error.h"
#include "compiler/ops/elementwise.h"
#include "compiler/ops/registry.h"
#include "graph/constant_eval.h"
#include "graph/tasks.h"

namespace tf::graph {
namespace {

using Named = std::map<std::string, int64_t>;

[[noreturn]] void refuse(const Node& n, const std::string& why) { throw CompileError(n.describe() + ": " + why); }

std::shared_ptr<const ops::Operator> registry_op(const std::string& name) {
  // Registry operators live as long as the process; the call shares them without owning them.
  return std::shared_ptr<const ops::Operator>(&ops::find_operator(name), [](const ops::Operator*) {});
}

// A call whose argument views come from the op: its input shapes, then its output shape.
KernelCall make_call(const Node& n, std::shared_ptr<const ops::Operator> op, std::vector<int64_t> shape, std::vector<std::string> args) {
  try {
    op->check_shape(shape);
  } catch (const CompileError& e) {
    refuse(n, std::string("not a valid ") + op->name() + " workload: " + e.what());
  }
  KernelCall c;
  c.arg_shapes = op->input_shapes(shape);
  c.arg_shapes.push_back(op->output_shape(shape));
  c.op = std::move(op);
  c.shape = std::move(shape);
  c.args = std::move(args);
  return c;
}

KernelCall named_call(const Node& n, const std::string& op, const Named& named, std::vector<std::string> args) {
  auto o = registry_op(op);
  return make_call(n, o, o->shape_from_named(named), std::move(args));
}

std::vector<std::string> with_output(std::vector<std::string> inputs, const Node& n) {
  inputs.push_back(n.outputs.at(0));
  return inputs;
}

// The extents before the last `drop_last` ones, multiplied: the rows a kernel sees.
int64_t leading_product(const Shape& s, size_t drop_last) {
  return element_count(Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(std::min(drop_last, s.size()))));
}

// conv2d* and dense* from fuse_epilogues: the workload node_kernel() gives. A dense of two computed
// operands (attention) runs as one batch_matmul.
KernelCall lower_conv_or_dense(const Graph& g, const Node& n) {
  const NodeKernel k = *node_kernel(g, n);
  if (k.calls == 1) return make_call(n, registry_op(n.op), k.workload.shape, with_output(n.inputs, n));
  if (n.op != "dense") refuse(n, "a batched product with an epilogue has no kernel");
  const Shape& a = g.input_of(n, 0).shape;
  const Shape& b = g.input_of(n, 1).shape;
  if (leading_product(a, 2) != leading_product(b, 2)) refuse(n, "broadcasting batch extents of " + shape_str(a) + " and " + shape_str(b) + " is not supported");
  return named_call(n, "batch_matmul", {{"B", k.calls}, {"M", k.workload.shape[0]}, {"N", k.workload.shape[1]}, {"K", k.workload.shape[2]}},
                    with_output(n.inputs, n));
}

// --- elementwise -------------------------------------------------------------------------------

std::optional<double> scalar_constant(const Graph& g, const std::string& value) {
  const Tensor* t = g.constant(value);
  if (!t || t->size() != 1) return std::nullopt;
  return t->at(0);
}

// The expressions of a chain of ONNX elementwise nodes. Inputs that are scalar constants in the
// outer graph become literals; every other input is a kernel argument, numbered in order.
class ExpressionBuilder {
 public:
  explicit ExpressionBuilder(const Graph& outer) : outer_(outer) {}

  ops::ElementwiseExprPtr value(const std::string& name) {
    if (auto it = exprs_.find(name); it != exprs_.end()) return it->second;
    if (auto c = scalar_constant(outer_, name)) return exprs_[name] = ops::ew_constant(*c);
    const int index = static_cast<int>(args_.size());
    args_.push_back(name);
    return exprs_[name] = ops::ew_input(index);
  }

  void add(const Graph& scope, const Node& n) { exprs_[n.outputs.at(0)] = expression_of(scope, n); }
  const std::vector<std::string>& args() const { return args_; }

 private:
  ops::ElementwiseExprPtr expression_of(const Graph& scope, const Node& n) {
    using K = ops::ElementwiseKind;
    static const std::map<std::string, K> binary = {{"Add", K::Add}, {"Sub", K::Sub}, {"Mul", K::Mul}, {"Div", K::Div}};
    static const std::map<std::string, K> unary = {{"Relu", K::Relu}, {"Sigmoid", K::Sigmoid}, {"Erf", K::Erf},
                                                   {"Tanh", K::Tanh}, {"Sqrt", K::Sqrt}};
    if (auto it = binary.find(n.op); it != binary.end()) {
      // Apart: the order a call evaluates its arguments in is unspecified, and value() numbers the
      // kernel's arguments as it first meets them.
      auto a = value(n.inputs.at(0));
      auto b = value(n.inputs.at(1));
      return ops::ew_binary(it->second, a, b);
    }
    if (auto it = unary.find(n.op); it != unary.end()) return ops::ew_unary(it->second, value(n.inputs.at(0)));
    if (n.op == "Pow") {
      const auto exponent = scalar_constant(outer_, n.inputs.at(1));
      if (!exponent) refuse(n, "Pow with a computed or non-scalar exponent has no kernel (the exponent must be one constant)");
      return ops::ew_pow(value(n.inputs.at(0)), *exponent);
    }
    if (n.op == "Clip") {
      auto bound = [&](size_t i, double fallback) {
        if (!scope.input_present(n, i)) return fallback;
        const auto c = scalar_constant(outer_, n.inputs[i]);
        if (!c) refuse(n, "Clip with a computed bound has no kernel (input " + std::to_string(i) + " must be a constant)");
        return *c;
      };
      return ops::ew_clip(value(n.inputs.at(0)), bound(1, -FLT_MAX), bound(2, FLT_MAX));
    }
    refuse(n, "op " + n.op + " has no elementwise kernel");
  }

  const Graph& outer_;
  std::map<std::string, ops::ElementwiseExprPtr> exprs_;
  std::vector<std::string> args_;
};

KernelCall lower_elementwise(const Graph& g, const Node& n) {
  ExpressionBuilder b(g);
  if (n.op == kFusedElementwise) {
    for (const Node& inner : n.body->nodes) b.add(*n.body, inner);
  } else {
    b.add(g, n);
  }
  const Shape& out = g.output_of(n).shape;
  if (out.empty() || out.size() > 6) refuse(n, "output rank " + std::to_string(out.size()) + " is outside the elementwise kernel's 1..6");
  std::vector<std::string> args = b.args();
  ops::ElementwiseExprPtr expr = b.value(n.outputs.at(0));
  if (args.empty()) refuse(n, "computes a constant that constant folding should have removed");
  std::vector<int64_t> shape;
  for (const auto& a : args) {
    const Shape& s = g.value(a).shape;
    if (s.size() > out.size()) refuse(n, "input '" + a + "' " + shape_str(s) + " has a higher rank than the output " + shape_str(out));
    shape.insert(shape.end(), out.size() - s.size(), 1);  // numpy aligns trailing axes
    shape.insert(shape.end(), s.begin(), s.end());
  }
  auto op = std::make_shared<ops::ElementwiseOperator>(expr, static_cast<int>(out.size()));
  return make_call(n, op, shape, with_output(args, n));
}

// --- the rest: pooling, rows, layout ---------------------------------------------------------

Named window_extents(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const auto k = n.attr_ints("kernel_shape", {}), strides = n.attr_ints("strides", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (n.attr_int("ceil_mode", 0) != 0) refuse(n, "attribute 'ceil_mode' = 1 is not supported");
  if (strides[0] != strides[1]) refuse(n, "attribute 'strides' = [" + std::to_string(strides[0]) + "," + std::to_string(strides[1]) + "]: one stride for both axes is supported");
  return {{"n", x[0]}, {"c", x[1]}, {"h", x[2]}, {"w", x[3]}, {"r", k.at(0)}, {"s", k.at(1)}, {"stride", strides[0]},
          {"pad_top", pads[0]}, {"pad_left", pads[1]}, {"pad_bottom", pads[2]}, {"pad_right", pads[3]}};
}

KernelCall lower_pool(const Graph& g, const Node& n) {
  Named e = window_extents(g, n);
  if (n.op == "MaxPool") return named_call(n, "max_pool2d", e, with_output({n.inputs[0]}, n));
  e["count_include_pad"] = n.attr_int("count_include_pad", 0);
  return named_call(n, "avg_pool2d", e, with_output({n.inputs[0]}, n));
}

int64_t last_axis_only(const Graph& g, const Node& n, const std::string& attr, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(g.input_of(n, 0).shape.size());
  if (axis < 0) axis += rank;
  if (axis != rank - 1) refuse(n, "attribute '" + attr + "' = " + std::to_string(axis) + ": only the last axis (" + std::to_string(rank - 1) + ") is supported");
  return axis;
}

KernelCall lower_row_op(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const Named rows = {{"rows", leading_product(x, 1)}, {"cols", x.back()}};
  if (n.op == "Softmax") {
    last_axis_only(g, n, "axis", n.attr_int("axis", -1));
    return named_call(n, "softmax", rows, with_output({n.inputs[0]}, n));
  }
  if (n.op == "ReduceMean") {
    const auto axes = n.attr_ints("axes", {});
    if (axes.size() != 1) refuse(n, "attribute 'axes': only a reduction over the last axis alone is supported");
    last_axis_only(g, n, "axes", axes[0]);
    return named_call(n, "reduce_mean", rows, with_output({n.inputs[0]}, n));
  }
  // LayerNormalization
  last_axis_only(g, n, "axis", n.attr_int("axis", -1));
  Named e = rows;
  e["eps_e12"] = std::llround(n.attr_float("epsilon", 1e-5) * 1e12);
  if (e["eps_e12"] < 1) refuse(n, "attribute 'epsilon' is below 1e-12, the smallest the kernel takes");
  std::vector<std::string> args = {n.inputs[0], n.inputs.at(1)};
  std::pair<std::string, Tensor> zero_bias;
  if (g.input_present(n, 2)) {
    args.push_back(n.inputs[2]);
  } else {
    zero_bias = {g.unique_name(n.name + "_zero_bias"), Tensor::floats({x.back()}, std::vector<float>(x.back(), 0.0f))};
    args.push_back(zero_bias.first);
  }
  KernelCall c = named_call(n, "layer_norm", e, with_output(args, n));
  if (!zero_bias.first.empty()) c.extra_constants.push_back(std::move(zero_bias));
  return c;
}

KernelCall lower_transpose(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  std::vector<int64_t> perm = n.attr_ints("perm", {});
  if (perm.empty()) {
    for (size_t i = 0; i < x.size(); ++i) perm.push_back(static_cast<int64_t>(x.size() - 1 - i));
  }
  Named e = {{"rank", static_cast<int64_t>(x.size())}};
  for (size_t k = 0; k < x.size(); ++k) {
    e["d" + std::to_string(k)] = x[k];
    e["p" + std::to_string(k)] = perm.at(k);
  }
  return named_call(n, "transpose", e, with_output({n.inputs[0]}, n));
}

KernelCall lower_concat(const Graph& g, const Node& n) {
  const Shape& out = g.output_of(n).shape;
  int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(out.size());
  Named e = {{"rank", static_cast<int64_t>(out.size())}, {"axis", axis}, {"inputs", static_cast<int64_t>(n.inputs.size())}};
  for (size_t k = 0; k < out.size(); ++k) e["d" + std::to_string(k)] = out[k];
  for (size_t i = 0; i < n.inputs.size(); ++i) e["a" + std::to_string(i)] = g.input_of(n, i).shape.at(static_cast<size_t>(axis));
  return named_call(n, "concat", e, with_output(n.inputs, n));
}

bool is_alias(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

}  // namespace

NodeLowering lower_node(const Graph& g, const Node& n) {
  NodeLowering l;
  if (is_alias(n.op)) {
    l.alias_of = n.inputs.at(0);
    return l;
  }
  if (n.has("workload_shape")) {
    // Nodes plan_layouts made (blocked convolutions, layout transforms) carry their extents.
    l.call = make_call(n, registry_op(n.op), n.attr_ints("workload_shape", {}), with_output(n.inputs, n));
  } else if (n.op.rfind("conv2d", 0) == 0 || n.op.rfind("dense", 0) == 0) {
    l.call = lower_conv_or_dense(g, n);
  } else if (n.op == kFusedElementwise || is_elementwise(n.op)) {
    l.call = lower_elementwise(g, n);
  } else if (n.op == "MaxPool" || n.op == "AveragePool") {
    l.call = lower_pool(g, n);
  } else if (n.op == "GlobalAveragePool") {
    const Shape& x = g.input_of(n, 0).shape;
    l.call = named_call(n, "global_avg_pool2d", {{"n", x[0]}, {"c", x[1]}, {"h", x[2]}, {"w", x[3]}}, with_output({n.inputs[0]}, n));
  } else if (n.op == "Softmax" || n.op == "ReduceMean" || n.op == "LayerNormalization") {
    l.call = lower_row_op(g, n);
  } else if (n.op == "Transpose") {
    l.call = lower_transpose(g, n);
  } else if (n.op == "Concat") {
    l.call = lower_concat(g, n);
  } else {
    refuse(n, "no kernel runs op " + n.op + " (the graph passes should have rewritten it)");
  }
  return l;
}

}  // namespace tf::graph

// Elementwise ops of one input: Relu, Sigmoid, Erf, Tanh, Sqrt, Neg, Exp, the math of one value
// (Abs, Log, the trigonometric and hyperbolic functions, rounding, Sign, Reciprocal, Softplus,
// Softsign), and Clip (whose bounds are attributes before opset 11 and scalar inputs from it on).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "graph/ops/elementwise.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using K = ops::ElementwiseKind;

elementwise::Spec unary(const std::string& name, std::vector<int> versions, K kind, double (*f)(double)) {
  elementwise::Spec s;
  s.name = name;
  s.versions = std::move(versions);
  s.f = [f](const std::vector<double>& a) { return f(a[0]); };
  s.expression = [kind](ElementwiseArgs& args, const Graph&, const Node& n) {
    return ops::ew_unary(kind, args.value(n.inputs.at(0)));
  };
  return s;
}

// The kinds whose kernels compute float64 too (IEEE operations and LLVM's exact intrinsics); the
// others' polynomials are float32 ones.
bool float_kernel(size_t, DType t) { return t == DType::Float32 || t == DType::Float64; }

double relu(double a) { return a > 0 ? a : 0; }
double sigmoid(double a) { return 1 / (1 + std::exp(-a)); }
double negate(double a) { return -a; }
double erf_(double a) { return std::erf(a); }
double tanh_(double a) { return std::tanh(a); }
double sqrt_(double a) { return std::sqrt(a); }
double exp_(double a) { return std::exp(a); }
double sign(double a) { return a > 0 ? 1 : a < 0 ? -1 : a; }  // NaN stays NaN
double reciprocal(double a) { return 1 / a; }
double softplus(double a) { return a > 20 ? a : std::log1p(std::exp(a)); }
double softsign(double a) { return a / (1 + std::fabs(a)); }
double round_even(double a) { return std::nearbyint(a); }  // the default rounding mode: halves to even

OpDef clip() {
  elementwise::Spec s;
  s.name = "Clip";
  s.versions = {1, 6, 11, 12, 13};
  s.max_inputs = 3;
  s.defaults = {0, -INFINITY, INFINITY};
  s.input_names = {"input", "min", "max"};
  s.f = [](const std::vector<double>& a) { return std::min(std::max(a[0], a[1]), a[2]); };
  s.expression = [](ElementwiseArgs& args, const Graph& scope, const Node& n) {
    auto bound = [&](size_t i, double fallback) {
      if (!scope.input_present(n, i)) return fallback;
      const auto c = args.scalar_constant(n.inputs[i]);
      if (!c)
        rules::fail(n, "Clip with a computed bound has no kernel (input " + std::to_string(i) + " must be a constant)");
      return *c;
    };
    return ops::ew_clip(args.value(n.inputs.at(0)), bound(1, -FLT_MAX), bound(2, FLT_MAX));
  };
  s.epilogue = Epilogue::Clip;
  OpDef d = elementwise::make_op(s);
  d.attributes = {"min", "max"};
  // Canonical: bounds as inputs 1 and 2 (absent: unbounded), as from opset 11.
  d.normalize = [](Graph& g, Node n, const OpVersion&) {
    rules::attribute_to_input(g, n, "min", 1);
    rules::attribute_to_input(g, n, "max", 2);
    return std::vector<Node>{std::move(n)};
  };
  return d;
}

}  // namespace

void add_unary_ops(std::vector<OpDef>& ops) {
  const size_t first = ops.size();
  elementwise::Spec r = unary("Relu", {1, 6, 13, 14}, K::Relu, relu);
  r.i = [](const Node&, const std::vector<int64_t>& a) { return std::max<int64_t>(a[0], 0); };
  r.epilogue = Epilogue::Relu;
  r.kernel_takes = float_kernel;
  ops.push_back(elementwise::make_op(r));
  ops.push_back(elementwise::make_op(unary("Sigmoid", {1, 6, 13}, K::Sigmoid, sigmoid)));
  ops.push_back(elementwise::make_op(unary("Erf", {9, 13}, K::Erf, erf_)));
  ops.push_back(elementwise::make_op(unary("Tanh", {1, 6, 13}, K::Tanh, tanh_)));
  elementwise::Spec sqrt_op = unary("Sqrt", {1, 6, 13}, K::Sqrt, sqrt_);
  sqrt_op.kernel_takes = float_kernel;
  ops.push_back(elementwise::make_op(sqrt_op));
  ops.push_back(elementwise::make_op(unary("Exp", {1, 6, 13}, K::Exp, exp_)));
  elementwise::Spec neg = unary("Neg", {1, 6, 13}, K::Neg, negate);
  neg.i = [](const Node&, const std::vector<int64_t>& a) { return -a[0]; };
  neg.kernel_takes = float_kernel;
  ops.push_back(elementwise::make_op(neg));
  struct Math {
    const char* name;
    std::vector<int> versions;
    K kind;
    double (*f)(double);
  };
  const Math math[] = {
      {"Abs", {1, 6, 13}, K::Abs, [](double a) { return std::fabs(a); }},
      {"Log", {1, 6, 13}, K::Log, [](double a) { return std::log(a); }},
      {"Floor", {1, 6, 13}, K::Floor, [](double a) { return std::floor(a); }},
      {"Ceil", {1, 6, 13}, K::Ceil, [](double a) { return std::ceil(a); }},
      {"Round", {11}, K::Round, round_even},
      {"Sign", {9, 13}, K::Sign, sign},
      {"Reciprocal", {1, 6, 13}, K::Reciprocal, reciprocal},
      {"Sin", {7}, K::Sin, [](double a) { return std::sin(a); }},
      {"Cos", {7}, K::Cos, [](double a) { return std::cos(a); }},
      {"Tan", {7}, K::Tan, [](double a) { return std::tan(a); }},
      {"Asin", {7}, K::Asin, [](double a) { return std::asin(a); }},
      {"Acos", {7}, K::Acos, [](double a) { return std::acos(a); }},
      {"Atan", {7}, K::Atan, [](double a) { return std::atan(a); }},
      {"Sinh", {9}, K::Sinh, [](double a) { return std::sinh(a); }},
      {"Cosh", {9}, K::Cosh, [](double a) { return std::cosh(a); }},
      {"Asinh", {9}, K::Asinh, [](double a) { return std::asinh(a); }},
      {"Acosh", {9}, K::Acosh, [](double a) { return std::acosh(a); }},
      {"Atanh", {9}, K::Atanh, [](double a) { return std::atanh(a); }},
      {"Softplus", {1}, K::Softplus, softplus},
      {"Softsign", {1}, K::Softsign, softsign},
  };
  for (const Math& m : math) {
    elementwise::Spec s = unary(m.name, m.versions, m.kind, m.f);
    const bool exact = m.kind == K::Abs || m.kind == K::Floor || m.kind == K::Ceil || m.kind == K::Round ||
                       m.kind == K::Sign || m.kind == K::Reciprocal;
    if (exact) s.kernel_takes = float_kernel;
    ops.push_back(elementwise::make_op(s));
  }
  ops.push_back(clip());
  // Version 1 of these differs from 6 only by consumed_inputs (and takes float types only).
  for (size_t i = first; i < ops.size(); ++i) {
    if (ops[i].versions.front() == 1 && ops[i].name != "Softplus" && ops[i].name != "Softsign")
      rules::ignore_consumed_inputs(ops[i]);
  }
}

}  // namespace tf::graph

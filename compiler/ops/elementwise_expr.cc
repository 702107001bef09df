#include "compiler/ops/elementwise_expr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/tensor_dtype.h"

namespace tf::ops {
namespace {

using Kind = ElementwiseKind;

struct KindName {
  Kind kind;
  const char* name;
  int arity;  // operand expressions; Pow and Clip take constants after theirs
};
constexpr KindName kKinds[] = {
    {Kind::Add, "add", 2},         {Kind::Sub, "sub", 2},   {Kind::Mul, "mul", 2},   {Kind::Div, "div", 2},
    {Kind::Max, "max", 2},         {Kind::Min, "min", 2},   {Kind::Neg, "neg", 1},   {Kind::Relu, "relu", 1},
    {Kind::Sigmoid, "sigmoid", 1}, {Kind::Erf, "erf", 1},   {Kind::Tanh, "tanh", 1}, {Kind::Sqrt, "sqrt", 1},
    {Kind::Exp, "exp", 1},         {Kind::Pow, "pow", 1},   {Kind::Clip, "clip", 1},
    {Kind::Cast, "cast", 1},
};

const KindName* find_kind(Kind k) {
  for (const auto& kn : kKinds) {
    if (kn.kind == k) return &kn;
  }
  return nullptr;
}

// The shortest decimal that reads back to the same float32: equal constants print equally.
std::string constant_text(double v) {
  const float f = static_cast<float>(v);
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return buf;
}

double to_float(double v) { return static_cast<double>(static_cast<float>(v)); }

void check_finite(double v, const std::string& what) {
  if (!std::isfinite(v)) throw CompileError("elementwise: " + what + " must be finite");
}

constexpr double kUnit = 1.0 / (1 << 24);  // float32 unit roundoff

// The largest change of a monotonic-by-pieces f over [v - e, v + e] (0 included when crossed).
double spread(const std::function<double(double)>& f, double v, double e) {
  const double fv = f(v);
  double worst = 0;
  for (double x : {v - e, v + e, (v - e < 0 && v + e > 0) ? 0.0 : v}) {
    const double fx = f(x);
    if (std::isnan(fx) != std::isnan(fv)) return INFINITY;
    if (!std::isnan(fx)) worst = std::max(worst, std::fabs(fx - fv));
  }
  return worst;
}

// A cast's value and error: an integer result may be off by what the operand's error can move
// it across; a float one rounds once (int64 beyond 2^24).
ElementwiseExpr::Bounded cast_bounded(ElementwiseExpr::Bounded a, DType to) {
  std::function<double(double)> f;
  switch (to) {
    case DType::Float32: return {to_float(a.value), a.error + kUnit * 2 * std::fabs(a.value)};
    case DType::Bool: f = [](double x) { return x != 0 ? 1.0 : 0.0; }; break;
    default: f = [](double x) { return std::trunc(x); }; break;
  }
  return {f(a.value), a.error > 0 ? spread(f, a.value, a.error) : 0};
}

double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

}  // namespace

std::string ElementwiseExpr::text() const {
  switch (kind) {
    case Kind::Input: return "x" + std::to_string(input);
    case Kind::Constant: return constant_text(value);
    default: break;
  }
  std::string t = std::string(find_kind(kind)->name) + "(";
  for (size_t i = 0; i < args.size(); ++i) t += (i ? "," : "") + args[i]->text();
  if (kind == Kind::Pow) t += "," + constant_text(value);
  if (kind == Kind::Clip) t += "," + constant_text(value) + "," + constant_text(value2);
  if (kind == Kind::Cast) t += std::string(",") + dtype_name(to);
  return t + ")";
}

int ElementwiseExpr::num_inputs() const {
  int n = kind == Kind::Input ? input + 1 : 0;
  for (const auto& a : args) n = std::max(n, a->num_inputs());
  return n;
}

ir::Expr ElementwiseExpr::to_ir(const std::function<ir::Expr(int)>& load) const {
  const auto f32 = ir::DataType::float32();
  auto arg = [&](size_t i) { return args[i]->to_ir(load); };
  switch (kind) {
    case Kind::Input: return load(input);
    case Kind::Constant: return ir::make_float(value, f32);
    case Kind::Add: return arg(0) + arg(1);
    case Kind::Sub: return arg(0) - arg(1);
    case Kind::Mul: return arg(0) * arg(1);
    case Kind::Div: return arg(0) / arg(1);
    case Kind::Max: return ir::max(arg(0), arg(1));
    case Kind::Min: return ir::min(arg(0), arg(1));
    case Kind::Neg: return ir::make_float(0.0, f32) - arg(0);
    case Kind::Relu: return ir::max(arg(0), ir::make_float(0.0, f32));
    case Kind::Sigmoid: return ir::sigmoid(arg(0));
    case Kind::Erf: return ir::erf(arg(0));
    case Kind::Tanh: return ir::tanh(arg(0));
    case Kind::Sqrt: return ir::sqrt(arg(0));
    case Kind::Exp: return ir::exp(arg(0));
    case Kind::Pow: return ir::pow_const(arg(0), value);
    case Kind::Clip: return ir::min(ir::max(arg(0), ir::make_float(value, f32)), ir::make_float(value2, f32));
    case Kind::Cast: return ir::make_cast(to == DType::Bool ? ir::DataType::boolean() : kernel_type(to), arg(0));
  }
  throw CompileError("elementwise: unknown kind");
}

ElementwiseExpr::Bounded ElementwiseExpr::evaluate(const std::vector<double>& in) const {
  // Each result's error: what its operands' errors can change it by, plus its own rounding (for the
  // polynomial transcendentals, the ulps codegen/fast_math.h documents, with a margin).
  auto rounded = [](double v, double ulps) { return ulps * kUnit * 2 * std::fabs(v); };
  if (kind == Kind::Input) return {in.at(static_cast<size_t>(input)), 0};
  if (kind == Kind::Constant) return {to_float(value), 0};
  const Bounded a = args[0]->evaluate(in);
  auto unary = [&](const std::function<double(double)>& f, double ulps) -> Bounded {
    const double v = f(a.value);
    return {v, spread(f, a.value, a.error) + rounded(v, ulps)};
  };
  switch (kind) {
    case Kind::Neg: return {-a.value, a.error};
    case Kind::Relu: return {std::max(a.value, 0.0), a.error};
    case Kind::Clip: return {std::min(std::max(a.value, to_float(value)), to_float(value2)), a.error};
    case Kind::Sigmoid: return unary(sigmoid, 4);
    case Kind::Erf: return unary([](double x) { return std::erf(x); }, 4);
    case Kind::Tanh: return unary([](double x) { return std::tanh(x); }, 4);
    case Kind::Sqrt: return unary([](double x) { return std::sqrt(x); }, 1);
    case Kind::Exp: return unary([](double x) { return std::exp(x); }, 3);
    case Kind::Cast: return cast_bounded(a, to);
    case Kind::Pow: {
      const double p = to_float(value);
      const bool by_multiplies = std::fabs(p) <= 64 && 2 * p == std::floor(2 * p);
      const double ulps = by_multiplies ? 2 + 2 * std::ceil(std::log2(std::fabs(p) + 1))
                                        : 4 + 3 * std::fabs(p * std::log(std::fabs(a.value)));
      return unary([p](double x) { return std::pow(x, p); }, ulps);
    }
    default: break;
  }
  const Bounded b = args[1]->evaluate(in);
  double v = 0, e = 0;
  switch (kind) {
    case Kind::Add: v = a.value + b.value, e = a.error + b.error; break;
    case Kind::Sub: v = a.value - b.value, e = a.error + b.error; break;
    case Kind::Mul:
      v = a.value * b.value;
      e = std::fabs(a.value) * b.error + std::fabs(b.value) * a.error + a.error * b.error;
      break;
    case Kind::Div:
      v = a.value / b.value;
      e = std::fabs(b.value) > b.error ? (a.error + std::fabs(v) * b.error) / (std::fabs(b.value) - b.error) : INFINITY;
      break;
    case Kind::Max: v = std::max(a.value, b.value), e = std::max(a.error, b.error); break;
    case Kind::Min: v = std::min(a.value, b.value), e = std::max(a.error, b.error); break;
    default: throw CompileError("elementwise: unknown kind");
  }
  return {v, e + rounded(v, 1)};
}

ElementwiseExprPtr ew_input(int index) {
  if (index < 0 || index > 63) throw CompileError("elementwise: input index " + std::to_string(index) + " is outside [0, 63]");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Input;
  e->input = index;
  return e;
}

ElementwiseExprPtr ew_constant(double v) {
  check_finite(v, "a constant");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Constant;
  e->value = to_float(v);
  return e;
}

ElementwiseExprPtr ew_binary(Kind kind, ElementwiseExprPtr a, ElementwiseExprPtr b) {
  const KindName* kn = find_kind(kind);
  if (!kn || kn->arity != 2) throw CompileError("elementwise: not a binary op");
  if (!a || !b) throw CompileError(std::string("elementwise: ") + kn->name + " of a null operand");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = kind;
  e->args = {std::move(a), std::move(b)};
  return e;
}

ElementwiseExprPtr ew_unary(Kind kind, ElementwiseExprPtr a) {
  const KindName* kn = find_kind(kind);
  if (!kn || kn->arity != 1 || kind == Kind::Pow || kind == Kind::Clip || kind == Kind::Cast) throw CompileError("elementwise: not a plain unary op");
  if (!a) throw CompileError(std::string("elementwise: ") + kn->name + " of a null operand");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = kind;
  e->args = {std::move(a)};
  return e;
}

ElementwiseExprPtr ew_cast(ElementwiseExprPtr a, DType to) {
  if (!a) throw CompileError("elementwise: cast of a null operand");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Cast;
  e->to = to;
  e->args = {std::move(a)};
  return e;
}

ElementwiseExprPtr ew_pow(ElementwiseExprPtr a, double exponent) {
  check_finite(exponent, "pow's exponent");
  if (!a) throw CompileError("elementwise: pow of a null operand");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Pow;
  e->value = to_float(exponent);
  e->args = {std::move(a)};
  return e;
}

ElementwiseExprPtr ew_clip(ElementwiseExprPtr a, double lo, double hi) {
  check_finite(lo, "clip's lo");
  check_finite(hi, "clip's hi");
  if (lo > hi) throw CompileError("elementwise: clip's lo " + constant_text(lo) + " is above its hi " + constant_text(hi));
  if (!a) throw CompileError("elementwise: clip of a null operand");
  auto e = std::make_shared<ElementwiseExpr>();
  e->kind = Kind::Clip;
  e->value = to_float(lo);
  e->value2 = to_float(hi);
  e->args = {std::move(a)};
  return e;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : t_(text) {}

  ElementwiseExprPtr whole() {
    ElementwiseExprPtr e = expr();
    if (pos_ != t_.size()) fail("unexpected '" + t_.substr(pos_, 1) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw CompileError("elementwise expression '" + t_ + "' at position " + std::to_string(pos_) + ": " + what);
  }
  void expect(char c) {
    if (pos_ >= t_.size() || t_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  double number() {
    const char* start = t_.c_str() + pos_;
    char* end = nullptr;
    const double v = std::strtod(start, &end);
    if (end == start) fail("expected a number");
    pos_ += static_cast<size_t>(end - start);
    if (!std::isfinite(v)) fail("a constant must be finite");
    return v;
  }
  ElementwiseExprPtr expr() {
    if (pos_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '-' || t_[pos_] == '.')) {
      return ew_constant(number());
    }
    size_t start = pos_;
    while (pos_ < t_.size() && std::isalnum(static_cast<unsigned char>(t_[pos_]))) ++pos_;
    const std::string word = t_.substr(start, pos_ - start);
    if (word.empty()) fail("expected an input, a constant or an op");
    if (word[0] == 'x' && word.size() > 1 && std::all_of(word.begin() + 1, word.end(), ::isdigit)) {
      if (word.size() > 3) fail("input " + word + " is out of range");
      return ew_input(std::stoi(word.substr(1)));
    }
    const KindName* kn = nullptr;
    for (const auto& k : kKinds) {
      if (word == k.name) kn = &k;
    }
    if (!kn) {
      pos_ = start;
      fail("unknown op '" + word + "'");
    }
    expect('(');
    std::vector<ElementwiseExprPtr> operands;
    for (int i = 0; i < kn->arity; ++i) {
      if (i) expect(',');
      operands.push_back(expr());
    }
    ElementwiseExprPtr e;
    if (kn->kind == Kind::Pow) {
      expect(',');
      e = ew_pow(operands[0], number());
    } else if (kn->kind == Kind::Cast) {
      expect(',');
      const size_t at = pos_;
      while (pos_ < t_.size() && std::isalnum(static_cast<unsigned char>(t_[pos_]))) ++pos_;
      const auto to = dtype_from_name(t_.substr(at, pos_ - at));
      if (!to) {
        pos_ = at;
        fail("expected a dtype (float32, int64, int32, bool)");
      }
      e = ew_cast(operands[0], *to);
    } else if (kn->kind == Kind::Clip) {
      expect(',');
      const double lo = number();
      expect(',');
      e = ew_clip(operands[0], lo, number());
    } else {
      e = kn->arity == 2 ? ew_binary(kn->kind, operands[0], operands[1]) : ew_unary(kn->kind, operands[0]);
    }
    expect(')');
    return e;
  }

  const std::string& t_;
  size_t pos_ = 0;
};

}  // namespace

ElementwiseExprPtr parse_elementwise(const std::string& text) { return Parser(text).whole(); }

}  // namespace tf::ops

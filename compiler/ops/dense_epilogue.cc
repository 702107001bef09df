#include "compiler/ops/dense_epilogue.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/ir.h"
#include "compiler/ir/math.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {
namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;
constexpr double kCubic = 0.044715;
// |d gelu / dx| <= 1.13 for both forms (at x ~ 1.4): an error in the sum grows by at most this.
constexpr double kGeluSlope = 1.2;

}  // namespace

std::string dense_epilogue_suffix(DenseEpilogue e) {
  switch (e) {
    case DenseEpilogue::None: return "";
    case DenseEpilogue::Bias: return "_bias";
    case DenseEpilogue::BiasRelu: return "_bias_relu";
    case DenseEpilogue::BiasGelu: return "_bias_gelu";
    case DenseEpilogue::BiasGeluTanh: return "_bias_gelu_tanh";
    case DenseEpilogue::BiasAdd: return "_bias_add";
  }
  return "";
}

std::string dense_epilogue_text(DenseEpilogue e) {
  switch (e) {
    case DenseEpilogue::None: return "";
    case DenseEpilogue::Bias: return " + bias[N]";
    case DenseEpilogue::BiasRelu: return ", then relu(. + bias[N])";
    case DenseEpilogue::BiasGelu: return ", then gelu(. + bias[N]) (erf form)";
    case DenseEpilogue::BiasGeluTanh: return ", then gelu(. + bias[N]) (tanh approximation)";
    case DenseEpilogue::BiasAdd: return " + bias[N] + R[M,N]";
  }
  return "";
}

bool has_bias(DenseEpilogue e) { return e != DenseEpilogue::None; }
bool has_residual(DenseEpilogue e) { return e == DenseEpilogue::BiasAdd; }

ir::Expr dense_epilogue_ir(DenseEpilogue e, ir::Expr c, ir::Expr bias, ir::Expr residual) {
  using ir::Expr;
  if (e == DenseEpilogue::None) return c;
  Expr v = c + bias;
  switch (e) {
    case DenseEpilogue::BiasRelu: return ir::max(v, Expr(0.0f));
    case DenseEpilogue::BiasGelu: return ir::gelu(v);
    case DenseEpilogue::BiasGeluTanh: {
      const Expr inner =
          v * (Expr(static_cast<float>(kSqrtTwoOverPi)) + Expr(static_cast<float>(kSqrtTwoOverPi * kCubic)) * v * v);
      return v * Expr(0.5f) * (Expr(1.0f) + ir::tanh(inner));
    }
    case DenseEpilogue::BiasAdd: return v + residual;
    default: return v;
  }
}

double gelu_erf(double x) { return 0.5 * x * (1 + std::erf(x * kSqrtHalf)); }
double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(kSqrtTwoOverPi * (x + kCubic * x * x * x))); }

double dense_epilogue_reference(DenseEpilogue e, double c, double c_error, double bias, double residual,
                                double* error) {
  if (e == DenseEpilogue::None) {
    *error = c_error;
    return c;
  }
  const double v = c + bias;
  const double v_error = c_error + kUnitRoundoff * std::fabs(v);
  double y = v;
  switch (e) {
    case DenseEpilogue::BiasRelu:
      y = std::max(v, 0.0);
      *error = v_error;
      break;
    case DenseEpilogue::BiasGelu:
    case DenseEpilogue::BiasGeluTanh:
      y = e == DenseEpilogue::BiasGelu ? gelu_erf(v) : gelu_tanh(v);
      // The slope carries the sum's error; the scaling, erf or tanh (3 ulp) and the products
      // round a few times relative to |v| and |y|.
      *error = kGeluSlope * v_error + 16 * kUnitRoundoff * (std::fabs(v) + std::fabs(y));
      break;
    case DenseEpilogue::BiasAdd:
      y = v + residual;
      *error = v_error + kUnitRoundoff * (std::fabs(residual) + std::fabs(y));
      break;
    default: *error = v_error;
  }
  return y;
}

}  // namespace tf::ops

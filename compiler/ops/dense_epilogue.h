// What a dense kernel does to each accumulated element before storing it: add a bias over N, then
// nothing, ReLU, GELU (erf, or the tanh approximation exporters also write), or add a residual
// R[M,N] (a transformer's skip connection). One place for the op-name suffix, the IR and the
// double-precision reference with its error bound, so the plain and the prepacked dense share them.
#pragma once

#include <string>

#include "compiler/ir/ir.h"

namespace tf::ops {

enum class DenseEpilogue { None, Bias, BiasRelu, BiasGelu, BiasGeluTanh, BiasAdd };

// "", "_bias", "_bias_relu", "_bias_gelu", "_bias_gelu_tanh", "_bias_add".
std::string dense_epilogue_suffix(DenseEpilogue e);
// The formula after the product, for descriptions: " + bias[N]", "relu(. + bias[N])", ...
std::string dense_epilogue_text(DenseEpilogue e);
bool has_bias(DenseEpilogue e);
bool has_residual(DenseEpilogue e);

// The stored value from the sum `c`, the bias element `bias` and the residual element `residual`
// (each unused where the epilogue has none).
ir::Expr dense_epilogue_ir(DenseEpilogue e, ir::Expr c, ir::Expr bias, ir::Expr residual);

// The epilogue in double precision on a sum `c` whose float32 error is at most `c_error`, with its
// bias and residual elements; returns the value and sets `*error` to the float32 kernel's bound.
double dense_epilogue_reference(DenseEpilogue e, double c, double c_error, double bias, double residual, double* error);

// GELU as BERT exporters write it, in double: x/2 (1 + erf(x / sqrt 2)) and the tanh approximation
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). What graph passes compare a fused chain against.
double gelu_erf(double x);
double gelu_tanh(double x);

}  // namespace tf::ops

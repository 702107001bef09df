// The requantizing epilogue of the integer convolutions and matrix products (qconv2d_nchwc,
// qdepthwise_nchwc, qdense_packed), ONNX QLinearConv's arithmetic on an int32 accumulator:
//     out = saturate_u8(round_half_even(float(acc + bias[k]) * scale[k]) + zero_points[1])
// clamped below at the output's zero point instead of 0 with `relu` (ReLU in the quantized domain).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/te/tensor.h"
#include "runtime/random_fill.h"

namespace tf::ops {

// One output byte from its int32 sum with the bias, its channel's scale and the output's zero point.
ir::Expr requantized_byte(const ir::Expr& acc_plus_bias, const ir::Expr& scale, const ir::Expr& y_zero, bool relu);

// `acc` (n, k_blocks, y, x, lane) int32; bias int32 and scale float32 (k_blocks, lane); zero_points
// int32 {input, output}. The uint8 output of acc's shape.
te::Tensor requantize_u8(const te::Tensor& acc, const te::Tensor& bias, const te::Tensor& scale,
                         const te::Tensor& zero_points, bool relu, const std::vector<int64_t>& out_shape);

// The checked and timed values of a requantizing op's inputs 2, 3, 4 (bias, scale, zero points) when
// each output sums `products` products of random bytes (about 128 x 74 x sqrt(products)): scales
// that put the typical one about 40 steps from the output's zero point, so a check sees outputs
// across the range rather than saturated ones (which a wrong accumulator would match as often as
// not). With `centered` (the ops that take their input bytes less kCenteredOffset) also input 1, the
// weights, within [-127, 127]: the centred product cannot take -128 (codegen/dot_product.h). None
// for the other inputs.
std::optional<runtime::FillRange> requantize_input_range(int index, int64_t products, bool centered = false);

// What the `_centered` integer ops subtract from each widened input byte (ir::Intrinsic::DotU8S8Centered).
constexpr int64_t kCenteredOffset = 128;

// The same in double for the references: acc + bias rounded to float32 first, as the kernels do.
double requantize_reference(double acc, double bias, double scale, double y_zero, bool relu);

}  // namespace tf::ops

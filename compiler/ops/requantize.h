// The requantizing epilogue of the integer convolutions (qconv2d_nchwc, qdepthwise_nchwc), ONNX
// QLinearConv's arithmetic on an int32 accumulator:
//     out = saturate_u8(round_half_even(float(acc + bias[k]) * scale[k]) + zero_points[1])
// clamped below at the output's zero point instead of 0 with `relu` (ReLU in the quantized domain).
#pragma once

#include <vector>

#include "compiler/te/tensor.h"

namespace tf::ops {

// `acc` (n, k_blocks, y, x, lane) int32; bias int32 and scale float32 (k_blocks, lane); zero_points
// int32 {input, output}. The uint8 output of acc's shape.
te::Tensor requantize_u8(const te::Tensor& acc, const te::Tensor& bias, const te::Tensor& scale,
                         const te::Tensor& zero_points, bool relu, const std::vector<int64_t>& out_shape);

// The same in double for the references: acc + bias rounded to float32 first, as the kernels do.
double requantize_reference(double acc, double bias, double scale, double y_zero, bool relu);

}  // namespace tf::ops

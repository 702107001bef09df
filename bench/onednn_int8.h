// oneDNN's int8 primitives as peers of tunefarm's integer kernels (qconv2d_nchwc, qdense_packed):
// uint8 activations with a zero point, int8 weights, int32 accumulation, uint8 outputs requantized
// per output channel (output scales and the destination's zero point), as a QDQ model's layer runs
// in ONNX Runtime or oneDNN. Layouts are oneDNN's choice (format_tag::any), the weights reordered
// into them once before timing; only the primitive is timed.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/conv2d_shape.h"

namespace tf::bench {

struct OnednnInt8Timing {
  std::vector<double> seconds;  // per call, as time_calls
  std::string impl;             // the implementation oneDNN picked, e.g. "brg:avx512_core_vnni"
};

// C[M,N] (uint8) = requantize(A[M,K] (uint8) * B[K,N] (int8)).
OnednnInt8Timing time_onednn_int8_matmul(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat);
// A forward-inference convolution on uint8 NCHW input and int8 OIHW weights, uint8 output.
OnednnInt8Timing time_onednn_int8_conv2d(const ops::Conv2dShape& shape, int threads, double min_ms, int repeat);

}  // namespace tf::bench

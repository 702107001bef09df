// The libraries tunefarm's kernels are measured against, timed with the same protocol as ours.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_shape.h"
#include "support/call_timer.h"

namespace tf::bench {

// C[M,N] = A[M,K] * B[K,N], row-major float32, on `threads` threads.
std::vector<double> time_onednn_matmul(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat);
std::vector<double> time_openblas_sgemm(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat);

// A forward-inference convolution (NCHW input, OIHW weight, no bias) as a framework runs it: oneDNN
// chooses the layouts of input, weight and output (format_tag::any), the inputs are reordered into
// them once before timing, and only the convolution is timed. `impl` is the implementation oneDNN
// picked (its impl_info_str, e.g. "brgconv:avx512_core"). Its output, reordered back to NCHW after
// timing, is checked against conv2d_reference: a wrong descriptor (dilation, groups, padding) would
// time a different convolution. Throws std::runtime_error naming the shape when oneDNN refuses it.
struct OnednnConvTiming {
  std::vector<double> seconds;  // per call, as time_calls
  std::string impl;
  int64_t mismatches = 0;  // elements outside the reference's per-element bound
};
// `winograd`: oneDNN's convolution_winograd algorithm instead of convolution_direct (only some
// CPUs and shapes have it: a refusal is a std::runtime_error saying so).
OnednnConvTiming time_onednn_conv2d(const ops::Conv2dShape& shape, int threads, double min_ms, int repeat,
                                    bool winograd = false);

}  // namespace tf::bench

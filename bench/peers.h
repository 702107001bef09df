// The libraries tunefarm's kernels are measured against, timed with the same protocol as ours.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace tf::bench {

// Seconds per call: `repeat` timings of `number` back-to-back calls, `number` grown until one
// timing lasts at least min_ms. The same protocol as KernelRunner::time.
std::vector<double> time_calls(const std::function<void()>& call, double min_ms, int repeat);

// C[M,N] = A[M,K] * B[K,N], row-major float32, on `threads` threads.
std::vector<double> time_onednn_matmul(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat);
std::vector<double> time_openblas_sgemm(int64_t M, int64_t N, int64_t K, int threads, double min_ms, int repeat);

}  // namespace tf::bench

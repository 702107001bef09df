// Runs a compiled kernel on random inputs: allocate, fill, reference, check, time. The careful
// measurement protocol (worker processes, cache flush, cool-down) belongs to the tuner's
// measurement library; this is the direct path for `tunefarm run` and the benchmarks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/ops/operator.h"
#include "runtime/kernel_abi.h"

namespace tf::compiler {

// A 64-byte-aligned float tensor that can be passed to a kernel.
class HostTensor {
 public:
  explicit HostTensor(std::vector<int64_t> shape);
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  int64_t size() const { return size_; }
  TFBuffer buffer() const;

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::vector<int64_t> shape_;
  int64_t size_;
  std::unique_ptr<float, Free> data_;
};

struct CheckResult {
  bool pass = false;
  double max_abs_error = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;  // flat index
};

class KernelRunner {
 public:
  // Allocates inputs and output for the workload and fills inputs with uniform [-1, 1) values.
  KernelRunner(const ops::Operator& op, std::vector<int64_t> shape, uint64_t seed = 1);  // 1: tune's default seed

  // Returns the kernel's status (TF_OK on success).
  int32_t run(TFKernelFn fn);
  CheckResult check();  // the last run's output against the reference (computed once)
  // Seconds per call: `repeat` timings, each of `number` back-to-back calls, `number` grown until
  // one timing lasts at least min_ms.
  std::vector<double> time(TFKernelFn fn, double min_ms, int repeat);

 private:
  const ops::Operator& op_;
  std::vector<int64_t> shape_;
  std::vector<HostTensor> tensors_;  // inputs, then the output
  std::vector<TFBuffer> args_;
  std::vector<float> reference_, tolerance_;
};

}  // namespace tf::compiler

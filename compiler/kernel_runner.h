// Runs a compiled kernel on random inputs: allocate, fill, reference, check, time. The careful
// measurement protocol (worker processes, cache flush, cool-down) belongs to the tuner's
// measurement library; this is the direct path for `tunefarm run` and the benchmarks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/ir/type.h"
#include "compiler/ops/operator.h"
#include "runtime/kernel_abi.h"

namespace tf::compiler {

// A 64-byte-aligned tensor of float32 (the default) or an integer type that can be passed to a kernel.
class HostTensor {
 public:
  explicit HostTensor(std::vector<int64_t> shape, ir::DataType type = ir::DataType::float32());
  float* data() { return static_cast<float*>(data_.get()); }  // float32 tensors
  const float* data() const { return static_cast<const float*>(data_.get()); }
  void* raw() { return data_.get(); }  // any type
  int64_t size() const { return size_; }
  ir::DataType type() const { return type_; }
  // Element i as a double, and set to v (converted to the type; integers wrap as a cast does).
  double value(int64_t i) const;
  void set(int64_t i, double v);
  TFBuffer buffer() const;

 private:
  struct Free {
    void operator()(void* p) const;
  };
  std::vector<int64_t> shape_;
  ir::DataType type_;
  int64_t size_;
  std::unique_ptr<void, Free> data_;
};

struct CheckResult {
  bool pass = false;
  double max_abs_error = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;  // flat index
};

class KernelRunner {
 public:
  // Allocates inputs and output for the workload and fills inputs with the values a tuning job's
  // worker derives from the same seed (the op's input_range; seed 1 gives tune's inputs), so `run`
  // checks a config on exactly the data it was measured on. `types`: the kernel's argument types
  // (compiler::Task::argument_types), float32 for all when empty.
  KernelRunner(const ops::Operator& op, std::vector<int64_t> shape, uint64_t seed = 1,
               std::vector<ir::DataType> types = {});

  // Input i, to set values the random ones would not exercise (a quantized op's scales); the
  // reference is computed from what the inputs hold at the first check.
  HostTensor& input(size_t i) { return tensors_.at(i); }
  const HostTensor& output() const { return tensors_.back(); }

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

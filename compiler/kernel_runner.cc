#include "compiler/kernel_runner.h"

#include <cmath>
#include <cstdlib>
#include <new>
#include <random>

#include "runtime/measure.h"
#include "runtime/random_fill.h"
#include "support/call_timer.h"

namespace tf::compiler {

HostTensor::HostTensor(std::vector<int64_t> shape) : shape_(std::move(shape)), size_(1) {
  for (int64_t d : shape_) size_ *= d;
  size_t bytes = (static_cast<size_t>(size_) * sizeof(float) + TF_BUFFER_ALIGNMENT - 1) / TF_BUFFER_ALIGNMENT *
                 TF_BUFFER_ALIGNMENT;
  data_.reset(static_cast<float*>(std::aligned_alloc(TF_BUFFER_ALIGNMENT, bytes)));
  if (!data_) throw std::bad_alloc();
}

void HostTensor::Free::operator()(float* p) const { std::free(p); }

TFBuffer HostTensor::buffer() const {
  TFBuffer b{};
  b.data = data_.get();
  b.shape = shape_.data();
  b.ndim = static_cast<int32_t>(shape_.size());
  b.dtype_code = TF_DTYPE_FLOAT;
  b.dtype_bits = 32;
  return b;
}

KernelRunner::KernelRunner(const ops::Operator& op, std::vector<int64_t> shape, uint64_t seed)
    : op_(op), shape_(std::move(shape)) {
  // The same inputs a tuning job's worker derives from the seed (runtime/random_fill.h), so `run`
  // checks a config on exactly the data it was measured on.
  int index = 0;
  for (const auto& s : op_.input_shapes(shape_)) {
    tensors_.emplace_back(s);
    runtime::fill_uniform(tensors_.back().data(), tensors_.back().size(), runtime::input_seed(seed, index++));
  }
  tensors_.emplace_back(op_.output_shape(shape_));
  for (const auto& t : tensors_) args_.push_back(t.buffer());
}

int32_t KernelRunner::run(TFKernelFn fn) {
  // Poison the output so a kernel that skips elements cannot pass on stale values.
  HostTensor& out = tensors_.back();
  for (int64_t i = 0; i < out.size(); ++i) out.data()[i] = std::nanf("");
  return fn(args_.data(), static_cast<int32_t>(args_.size()));
}

CheckResult KernelRunner::check() {
  if (reference_.empty()) {
    std::vector<const float*> in;
    for (size_t i = 0; i + 1 < tensors_.size(); ++i) in.push_back(tensors_[i].data());
    op_.reference(shape_, in, &reference_, &tolerance_);
  }
  CheckResult r;
  const HostTensor& out = tensors_.back();
  for (int64_t i = 0; i < out.size(); ++i) {
    const bool match = runtime::matches_reference(out.data()[i], reference_[i], tolerance_[i]);
    if (!match && r.mismatches++ == 0) r.first_mismatch = i;
    double err = std::fabs(static_cast<double>(out.data()[i]) - reference_[i]);
    if (std::isnan(err)) err = match ? 0 : INFINITY;  // the same NaN or infinity
    r.max_abs_error = std::max(r.max_abs_error, err);
  }
  r.pass = r.mismatches == 0;
  return r;
}

std::vector<double> KernelRunner::time(TFKernelFn fn, double min_ms, int repeat) {
  return time_calls([&] { fn(args_.data(), static_cast<int32_t>(args_.size())); }, min_ms, repeat);
}

}  // namespace tf::compiler

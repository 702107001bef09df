#include "compiler/kernel_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <random>

#include "compiler/codegen/abi_dtype.h"
#include "runtime/measure.h"
#include "runtime/random_fill.h"
#include "support/call_timer.h"

namespace tf::compiler {

HostTensor::HostTensor(std::vector<int64_t> shape, ir::DataType type)
    : shape_(std::move(shape)), type_(type), size_(1) {
  for (int64_t d : shape_) size_ *= d;
  const size_t bytes = (static_cast<size_t>(size_) * static_cast<size_t>(type_.bytes()) + TF_BUFFER_ALIGNMENT - 1) /
                       TF_BUFFER_ALIGNMENT * TF_BUFFER_ALIGNMENT;
  data_.reset(std::aligned_alloc(TF_BUFFER_ALIGNMENT, std::max<size_t>(bytes, TF_BUFFER_ALIGNMENT)));
  if (!data_) throw std::bad_alloc();
}

void HostTensor::Free::operator()(void* p) const { std::free(p); }

double HostTensor::value(int64_t i) const {
  return runtime::element_value(data_.get(), codegen::abi_dtype_code(type_), type_.bits, i);
}

void HostTensor::set(int64_t i, double v) {
  void* p = data_.get();
  if (type_.is_float()) {
    static_cast<float*>(p)[i] = static_cast<float>(v);
    return;
  }
  const auto w = static_cast<int64_t>(v);
  switch (type_.bits) {
    case 8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(w); break;
    case 32: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(w); break;
    default: static_cast<int64_t*>(p)[i] = w; break;
  }
}

TFBuffer HostTensor::buffer() const {
  TFBuffer b{};
  b.data = data_.get();
  b.shape = shape_.data();
  b.ndim = static_cast<int32_t>(shape_.size());
  b.dtype_code = codegen::abi_dtype_code(type_);
  b.dtype_bits = type_.bits;
  return b;
}

KernelRunner::KernelRunner(const ops::Operator& op, std::vector<int64_t> shape, uint64_t seed,
                           std::vector<ir::DataType> types)
    : op_(op), shape_(std::move(shape)) {
  const auto input_shapes = op_.input_shapes(shape_);
  auto type_of = [&](size_t i) { return i < types.size() ? types[i] : ir::DataType::float32(); };
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    tensors_.emplace_back(input_shapes[i], type_of(i));
    HostTensor& t = tensors_.back();
    const runtime::FillRange range = op_.input_range(shape_, static_cast<int>(i), t.type());
    runtime::fill_tensor(t.raw(), t.size(), codegen::abi_dtype_code(t.type()), t.type().bits, range,
                         runtime::input_seed(seed, static_cast<int>(i)));
  }
  tensors_.emplace_back(op_.output_shape(shape_), type_of(input_shapes.size()));
  for (const auto& t : tensors_) args_.push_back(t.buffer());
}

int32_t KernelRunner::run(TFKernelFn fn) {
  // Poison the output so a kernel that skips elements cannot pass on stale values.
  HostTensor& out = tensors_.back();
  for (int64_t i = 0; i < out.size(); ++i) out.set(i, out.type().is_float() ? std::nan("") : 0x5a);
  return fn(args_.data(), static_cast<int32_t>(args_.size()));
}

CheckResult KernelRunner::check() {
  if (reference_.empty()) {
    // The reference reads every input as floats: integers up to 2^24 are exact.
    std::vector<std::vector<float>> values(tensors_.size() - 1);
    std::vector<const float*> in;
    for (size_t i = 0; i + 1 < tensors_.size(); ++i) {
      const HostTensor& t = tensors_[i];
      if (t.type() == ir::DataType::float32()) {
        in.push_back(t.data());
        continue;
      }
      values[i].resize(static_cast<size_t>(t.size()));
      for (int64_t e = 0; e < t.size(); ++e) values[i][static_cast<size_t>(e)] = static_cast<float>(t.value(e));
      in.push_back(values[i].data());
    }
    op_.reference(shape_, in, &reference_, &tolerance_);
  }
  CheckResult r;
  const HostTensor& out = tensors_.back();
  for (int64_t i = 0; i < out.size(); ++i) {
    const double got = out.value(i);
    const bool match = runtime::matches_reference(got, reference_[i], tolerance_[i]);
    if (!match && r.mismatches++ == 0) r.first_mismatch = i;
    double err = std::fabs(got - reference_[i]);
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

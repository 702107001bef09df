#include "support/host_tensor.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace tf {
namespace {

int64_t count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

template <typename T>
HostTensor make(DType dtype, std::vector<int64_t> shape, const T* values, size_t n) {
  if (static_cast<int64_t>(n) != count(shape)) {
    throw std::invalid_argument(std::string("a ") + dtype_name(dtype) + " tensor of " + std::to_string(count(shape)) +
                                " elements given " + std::to_string(n) + " values");
  }
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.resize(n * sizeof(T));
  if (n) std::memcpy(t.bytes.data(), values, n * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> values_of(const HostTensor& t, DType want) {
  if (t.dtype != want)
    throw std::invalid_argument(std::string("a ") + dtype_name(t.dtype) + " tensor read as " + dtype_name(want));
  std::vector<T> out(t.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), t.bytes.data(), out.size() * sizeof(T));
  return out;
}

}  // namespace

HostTensor HostTensor::floats(std::vector<int64_t> shape, const std::vector<float>& v) {
  return make(DType::Float32, std::move(shape), v.data(), v.size());
}
HostTensor HostTensor::float64s(std::vector<int64_t> shape, const std::vector<double>& v) {
  return make(DType::Float64, std::move(shape), v.data(), v.size());
}
HostTensor HostTensor::int64s(std::vector<int64_t> shape, const std::vector<int64_t>& v) {
  return make(DType::Int64, std::move(shape), v.data(), v.size());
}
HostTensor HostTensor::int32s(std::vector<int64_t> shape, const std::vector<int32_t>& v) {
  return make(DType::Int32, std::move(shape), v.data(), v.size());
}
HostTensor HostTensor::bools(std::vector<int64_t> shape, const std::vector<bool>& v) {
  std::vector<uint8_t> bytes(v.begin(), v.end());
  return make(DType::Bool, std::move(shape), bytes.data(), bytes.size());
}

HostTensor HostTensor::int8s(std::vector<int64_t> shape, const std::vector<int8_t>& v) {
  return make(DType::Int8, std::move(shape), v.data(), v.size());
}
HostTensor HostTensor::uint8s(std::vector<int64_t> shape, const std::vector<uint8_t>& v) {
  return make(DType::UInt8, std::move(shape), v.data(), v.size());
}

HostTensor HostTensor::zeros(DType dtype, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.assign(static_cast<size_t>(count(t.shape) * dtype_bytes(dtype)), 0);
  return t;
}

int64_t HostTensor::elements() const { return count(shape); }

std::vector<float> HostTensor::as_floats() const { return values_of<float>(*this, DType::Float32); }
std::vector<double> HostTensor::as_float64s() const { return values_of<double>(*this, DType::Float64); }
std::vector<int64_t> HostTensor::as_int64s() const { return values_of<int64_t>(*this, DType::Int64); }
std::vector<int32_t> HostTensor::as_int32s() const { return values_of<int32_t>(*this, DType::Int32); }
std::vector<uint8_t> HostTensor::as_bools() const {
  std::vector<uint8_t> out = values_of<uint8_t>(*this, DType::Bool);
  for (uint8_t& b : out) b = b != 0;
  return out;
}

std::vector<int8_t> HostTensor::as_int8s() const { return values_of<int8_t>(*this, DType::Int8); }
std::vector<uint8_t> HostTensor::as_uint8s() const { return values_of<uint8_t>(*this, DType::UInt8); }

double HostTensor::at(int64_t i) const {
  const uint8_t* p = bytes.data() + i * dtype_bytes(dtype);
  switch (dtype) {
    case DType::Float32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::Int64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case DType::Int32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::Bool: return *p != 0;
    case DType::Int8: return static_cast<int8_t>(*p);
    case DType::UInt8: return *p;
    case DType::Float64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
  return 0;
}

}  // namespace tf

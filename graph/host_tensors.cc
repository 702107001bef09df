#include "graph/host_tensors.h"

#include "compiler/error.h"

namespace tf::graph {

HostTensor to_host_tensor(const Tensor& t) {
  const size_t held = t.held();
  if (static_cast<int64_t>(held) != t.size()) {
    throw CompileError(std::string("a ") + dtype_name(t.dtype) + " tensor of shape " + shape_str(t.shape) + " holds " +
                       std::to_string(held) + " values");
  }
  switch (t.dtype) {
    case DType::Float32: return HostTensor::floats(t.shape, t.f32);
    case DType::Float64: return HostTensor::float64s(t.shape, t.f64);
    case DType::Int64: return HostTensor::int64s(t.shape, t.i64);
    case DType::Int32: return HostTensor::int32s(t.shape, std::vector<int32_t>(t.i64.begin(), t.i64.end()));
    case DType::Bool: return HostTensor::bools(t.shape, std::vector<bool>(t.i64.begin(), t.i64.end()));
    case DType::Int8: return HostTensor::int8s(t.shape, std::vector<int8_t>(t.i64.begin(), t.i64.end()));
    case DType::UInt8: return HostTensor::uint8s(t.shape, std::vector<uint8_t>(t.i64.begin(), t.i64.end()));
  }
  throw CompileError("unknown dtype");
}

Tensor from_host_tensor(const HostTensor& t) {
  switch (t.dtype) {
    case DType::Float32: return Tensor::floats(t.shape, t.as_floats());
    case DType::Float64: return Tensor::doubles(t.shape, t.as_float64s());
    case DType::Int64: return Tensor::ints(t.shape, t.as_int64s());
    case DType::Int32: {
      const auto v = t.as_int32s();
      return Tensor::ints(t.shape, std::vector<int64_t>(v.begin(), v.end()), DType::Int32);
    }
    case DType::Bool: {
      const auto v = t.as_bools();
      return Tensor::ints(t.shape, std::vector<int64_t>(v.begin(), v.end()), DType::Bool);
    }
    case DType::Int8: {
      const auto v = t.as_int8s();
      return Tensor::ints(t.shape, std::vector<int64_t>(v.begin(), v.end()), DType::Int8);
    }
    case DType::UInt8: {
      const auto v = t.as_uint8s();
      return Tensor::ints(t.shape, std::vector<int64_t>(v.begin(), v.end()), DType::UInt8);
    }
  }
  throw CompileError("unknown dtype");
}

}  // namespace tf::graph

// A tensor in host memory: what a caller hands a compiled model and gets back from it, what a .npy
// file holds, what a peer runtime is fed. An element type, a shape and the elements' bytes
// (little-endian, row-major, dense; a bool is one byte, 0 or 1).
#pragma once

#include <cstdint>
#include <vector>

#include "support/dtype.h"

namespace tf {

struct HostTensor {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  // Built from values; std::invalid_argument when their count is not the shape's.
  static HostTensor floats(std::vector<int64_t> shape, const std::vector<float>& values);
  static HostTensor float64s(std::vector<int64_t> shape, const std::vector<double>& values);
  static HostTensor int64s(std::vector<int64_t> shape, const std::vector<int64_t>& values);
  static HostTensor int32s(std::vector<int64_t> shape, const std::vector<int32_t>& values);
  static HostTensor bools(std::vector<int64_t> shape, const std::vector<bool>& values);
  static HostTensor int8s(std::vector<int64_t> shape, const std::vector<int8_t>& values);
  static HostTensor uint8s(std::vector<int64_t> shape, const std::vector<uint8_t>& values);
  static HostTensor zeros(DType dtype, std::vector<int64_t> shape);

  // The shape's element count (1 for a scalar); the bytes hold exactly this many elements.
  int64_t elements() const;
  // The elements in the tensor's own type; std::invalid_argument naming both types when it is
  // another. A bool reads as 0 or 1 (any non-zero byte as 1).
  std::vector<float> as_floats() const;
  std::vector<double> as_float64s() const;
  std::vector<int64_t> as_int64s() const;
  std::vector<int32_t> as_int32s() const;
  std::vector<uint8_t> as_bools() const;
  std::vector<int8_t> as_int8s() const;
  std::vector<uint8_t> as_uint8s() const;
  // Element i as a double, whatever the type (an int64 beyond 2^53 rounds): for comparisons.
  double at(int64_t i) const;
};

}  // namespace tf

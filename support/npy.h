// NumPy's .npy format (version 1.0-3.0), the ecosystem's way to hand a tensor to a program and back.
// The dtypes models take and give here ('<f4' float32, '<i8' int64, '<i4' int32, '|b1' bool),
// little-endian, C order.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/host_tensor.h"

namespace tf {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws NpyError naming the path and what is wrong (not .npy, another dtype, named, Fortran
// order, a header or data the file is too short for). float64 files read as float64, never
// narrowed. Nothing is allocated before the file is known to hold it. A bool byte other
// than 0 reads as 1.
HostTensor read_npy(const std::string& path);
// The same from `in`, which holds `size` bytes; `name` stands for the file in messages.
HostTensor read_npy(std::istream& in, uint64_t size, const std::string& name);
// Writes atomically (a temporary file renamed over the target). Throws NpyError, also when the
// bytes do not hold the shape's elements.
void write_npy(const std::string& path, const HostTensor& tensor);
// A float32 array.
void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<float>& data);

}  // namespace tf

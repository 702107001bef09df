// NumPy's .npy format (version 1.0-3.0), the ecosystem's way to hand a tensor to a program and back.
// float32 only, little-endian, C order: what models take and give here.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tf {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// Throws NpyError naming the path and what is wrong (not .npy, another dtype, Fortran order, a
// header or data the file is too short for). float64 files are refused rather than silently
// narrowed. Nothing is allocated before the file is known to hold it.
NpyArray read_npy(const std::string& path);
// The same from `in`, which holds `size` bytes; `name` stands for the file in messages.
NpyArray read_npy(std::istream& in, uint64_t size, const std::string& name);
// Writes atomically (a temporary file renamed over the target). Throws NpyError.
void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<float>& data);

}  // namespace tf

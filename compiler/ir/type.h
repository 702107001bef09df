// Scalar and vector data types carried by every IR node.
#pragma once

#include <cstdint>
#include <string>

namespace tf::ir {

struct DataType {
  enum Code : uint8_t { Int, UInt, Float };

  Code code = Int;
  uint8_t bits = 64;
  uint16_t lanes = 1;

  constexpr DataType() = default;
  constexpr DataType(Code c, int b, int l = 1)
      : code(c), bits(static_cast<uint8_t>(b)), lanes(static_cast<uint16_t>(l)) {}

  static constexpr DataType int64(int lanes = 1) { return {Int, 64, lanes}; }
  static constexpr DataType int32(int lanes = 1) { return {Int, 32, lanes}; }
  static constexpr DataType float32(int lanes = 1) { return {Float, 32, lanes}; }
  static constexpr DataType float16(int lanes = 1) { return {Float, 16, lanes}; }
  static constexpr DataType int8(int lanes = 1) { return {Int, 8, lanes}; }
  static constexpr DataType uint8(int lanes = 1) { return {UInt, 8, lanes}; }
  // Booleans are one-bit unsigned integers, as in LLVM.
  static constexpr DataType boolean(int lanes = 1) { return {UInt, 1, lanes}; }

  bool is_int() const { return code == Int; }
  bool is_uint() const { return code == UInt && bits > 1; }
  bool is_bool() const { return code == UInt && bits == 1; }
  bool is_float() const { return code == Float; }
  bool is_scalar() const { return lanes == 1; }
  bool is_vector() const { return lanes > 1; }
  int bytes() const { return (bits + 7) / 8; }

  DataType element_of() const { return {code, bits, 1}; }
  DataType with_lanes(int l) const { return {code, bits, l}; }

  bool operator==(const DataType& o) const { return code == o.code && bits == o.bits && lanes == o.lanes; }
  bool operator!=(const DataType& o) const { return !(*this == o); }

  // "float32", "int64", "float32x8", "bool".
  std::string str() const;
  // Inverse of str() for scalar types; returns false on an unknown name.
  static bool parse(const std::string& s, DataType* out);
};

}  // namespace tf::ir

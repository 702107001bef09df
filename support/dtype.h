// The element types a model's tensors hold, shared by the graph IR, the compiled model (.tfm), its
// executor and the .npy files models read and write: one enum, so a value's type never needs
// translating between them. A bool is one byte holding 0 or 1 (as NumPy, ONNX and ONNX Runtime
// store it), never a bit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tf {

enum class DType : uint8_t { Float32, Int64, Int32, Bool, Float64, Int8, UInt8 };

// "float32", "int64", "int32", "bool", "float64", "int8", "uint8": the names the .tfm manifest and
// messages use.
const char* dtype_name(DType t);
// The inverse of dtype_name; nullopt for any other name.
std::optional<DType> dtype_from_name(const std::string& name);
// Bytes per element: 4, 8, 4, 1, 8, 1, 1.
int dtype_bytes(DType t);
// Int64, Int32, Int8 or UInt8.
bool is_integer(DType t);
// The values an integer type holds (Bool: 0 and 1; a float type: 0, 0): what a conversion saturates to.
int64_t dtype_min(DType t);
int64_t dtype_max(DType t);

}  // namespace tf

// The element types a model's tensors hold, shared by the graph IR, the compiled model (.tfm), its
// executor and the .npy files models read and write: one enum, so a value's type never needs
// translating between them. A bool is one byte holding 0 or 1 (as NumPy, ONNX and ONNX Runtime
// store it), never a bit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tf {

enum class DType : uint8_t { Float32, Int64, Int32, Bool, Float64 };

// "float32", "int64", "int32", "bool", "float64": the names the .tfm manifest and messages use.
const char* dtype_name(DType t);
// The inverse of dtype_name; nullopt for any other name.
std::optional<DType> dtype_from_name(const std::string& name);
// Bytes per element: 4, 8, 4, 1, 8.
int dtype_bytes(DType t);

}  // namespace tf

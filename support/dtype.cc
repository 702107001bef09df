#include "support/dtype.h"

namespace tf {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Int64: return "int64";
    case DType::Int32: return "int32";
    case DType::Bool: return "bool";
    case DType::Float64: return "float64";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
  }
  return "unknown";
}

std::optional<DType> dtype_from_name(const std::string& name) {
  for (DType t : {DType::Float32, DType::Int64, DType::Int32, DType::Bool, DType::Float64, DType::Int8, DType::UInt8}) {
    if (name == dtype_name(t)) return t;
  }
  return std::nullopt;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::Int64:
    case DType::Float64: return 8;
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8: return 1;
    default: return 4;
  }
}

bool is_integer(DType t) { return t == DType::Int64 || t == DType::Int32 || t == DType::Int8 || t == DType::UInt8; }

int64_t dtype_min(DType t) {
  switch (t) {
    case DType::Int64: return INT64_MIN;
    case DType::Int32: return INT32_MIN;
    case DType::Int8: return -128;
    default: return 0;
  }
}

int64_t dtype_max(DType t) {
  switch (t) {
    case DType::Int64: return INT64_MAX;
    case DType::Int32: return INT32_MAX;
    case DType::Int8: return 127;
    case DType::UInt8: return 255;
    case DType::Bool: return 1;
    default: return 0;
  }
}

}  // namespace tf

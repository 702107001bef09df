#include "support/dtype.h"

namespace tf {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Int64: return "int64";
    case DType::Int32: return "int32";
    case DType::Bool: return "bool";
    case DType::Float64: return "float64";
  }
  return "unknown";
}

std::optional<DType> dtype_from_name(const std::string& name) {
  for (DType t : {DType::Float32, DType::Int64, DType::Int32, DType::Bool, DType::Float64}) {
    if (name == dtype_name(t)) return t;
  }
  return std::nullopt;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::Int64:
    case DType::Float64: return 8;
    case DType::Bool: return 1;
    default: return 4;
  }
}

}  // namespace tf

#include "compiler/ops/tensor_dtype.h"

namespace tf::ops {

ir::DataType kernel_type(DType t) {
  switch (t) {
    case DType::Int64: return ir::DataType::int64();
    case DType::Int32: return ir::DataType::int32();
    case DType::Bool: return ir::DataType::uint8();
    case DType::Float64: return ir::DataType(ir::DataType::Float, 64);
    case DType::Int8: return ir::DataType::int8();
    case DType::UInt8: return ir::DataType::uint8();
    default: return ir::DataType::float32();
  }
}

std::optional<DType> model_dtype(ir::DataType k) {
  for (DType t : {DType::Float32, DType::Int64, DType::Int32, DType::Bool, DType::Float64, DType::Int8}) {
    if (kernel_type(t) == k) return t;
  }
  return std::nullopt;
}

}  // namespace tf::ops

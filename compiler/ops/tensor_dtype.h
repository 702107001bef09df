// How a model's element types (support/dtype.h) are typed in a kernel: the placeholder type of a
// tensor argument holding them. A bool is stored as one byte 0/1, so its placeholder is uint8 (an
// IR bool is one bit, and LLVM packs a vector of them into bits); an expression reads it as
// `x != 0`. The kernel's entry checks every argument's type against this (TFBuffer's dtype_code
// and dtype_bits), so a model that hands a kernel another type gets TF_ERR_DTYPE, never garbage.
#pragma once

#include <optional>

#include "compiler/ir/type.h"
#include "support/dtype.h"

namespace tf::ops {

ir::DataType kernel_type(DType t);
// The model type a kernel argument of this (scalar) type holds; nullopt when none does (float16).
// uint8 reads as Bool: a uint8 and a bool argument share the kernel type, and an expression tells
// them apart by the model types it was built for.
std::optional<DType> model_dtype(ir::DataType kernel);
// v rounded to the nearest float32, as a kernel stores a constant.
inline double round_to_float(double v) { return static_cast<double>(static_cast<float>(v)); }

}  // namespace tf::ops

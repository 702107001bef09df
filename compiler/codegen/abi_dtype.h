// How the kernel ABI names an IR element type (runtime/kernel_abi.h TF_DTYPE_*, with type.bits):
// what a kernel's entry checks its arguments against and what a caller passes.
#pragma once

#include <cstdint>

#include "compiler/ir/type.h"
#include "runtime/kernel_abi.h"

namespace tf::codegen {

inline int32_t abi_dtype_code(ir::DataType type) {
  return type.is_float() ? TF_DTYPE_FLOAT : type.is_int() ? TF_DTYPE_INT : TF_DTYPE_UINT;
}

}  // namespace tf::codegen

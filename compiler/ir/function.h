// A lowered kernel: the unit code generation consumes.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tf::ir {

// The kernel's C ABI (see runtime/kernel_abi.h): it receives its Arg buffers in `args` order, each
// with data pointer, shape and dtype, checks them, then runs `body`.
struct LoweredFunc {
  std::string name;
  std::vector<Buffer> args;  // inputs first, outputs last, each MemoryScope::Arg
  Stmt body;
};

}  // namespace tf::ir

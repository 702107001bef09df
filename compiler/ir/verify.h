// Checks the invariants code generation relies on in a lowered kernel, so that a pass that breaks
// one is caught where it ran instead of as a crash or a wrong kernel in LLVM. lower() runs it after
// every pass in builds with assertions (NDEBUG undefined); tests run it in any build.
#pragma once

#include "compiler/ir/function.h"

namespace tf::ir {

// Throws CompileError naming the kernel and what is wrong when
//   - a variable is read outside the For or LetStmt that binds it, or bound again inside its own
//     scope (code generation forgets a variable when its scope closes);
//   - a Load or Store reaches a buffer that is neither an argument nor allocated around it;
//   - an argument is not MemoryScope::Arg, or an Allocate is;
//   - a TensorLoad or Reduce is left (lowering replaces them with loads and loops).
void verify(const LoweredFunc& f);

}  // namespace tf::ir

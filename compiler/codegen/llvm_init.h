// One-time registration of LLVM's targets, shared by target parsing and code generation.
#pragma once

namespace tf::codegen {

// Registers every backend this LLVM was built with (x86 and AArch64 among them), once per process.
void initialize_llvm();

}  // namespace tf::codegen

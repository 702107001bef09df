// The LLVM machinery shared by the JIT and the shared-library paths: target machines, the O3
// pipeline, object and assembly emission (internal to codegen/).
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

#include "compiler/codegen/target.h"

namespace tf::codegen {

// A target machine for `target`, position-independent (a shared library needs it; the JIT does not
// mind). Throws tf::CompileError when the backend cannot be created.
std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target& target, int opt_level);

// At opt_level 3 runs the kernel pipeline (a short list of what scheduled kernels need), or LLVM's
// whole O3 pipeline with llvm_o3; levels 1-2 are LLVM's O1/O2, 0 only verifies.
void optimize_module(llvm::Module& m, llvm::TargetMachine& tm, int opt_level, bool llvm_o3 = false);

// Machine code for the module, as an ELF relocatable object or as assembly text.
std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm);
std::string emit_assembly(llvm::Module& m, llvm::TargetMachine& tm);

std::string module_to_string(const llvm::Module& m);

// With TUNEFARM_DUMP_LLVM=DIR set, writes the unoptimised module to DIR/<name>.ll (to replay the
// pipeline with opt-16 when a kernel compiles slowly or wrongly).
void dump_module_if_asked(const llvm::Module& m);

}  // namespace tf::codegen

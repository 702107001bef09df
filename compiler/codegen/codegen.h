// LLVM code generation for a lowered kernel: in-process JIT for local runs, or a self-contained
// shared library (bytes) for a board that does not link LLVM.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/ir/function.h"
#include "runtime/kernel_abi.h"

namespace tf::codegen {

// A kernel compiled into this process. Keeps its code alive; `entry` follows runtime/kernel_abi.h.
class JitKernel {
 public:
  virtual ~JitKernel() = default;
  virtual TFKernelFn entry() const = 0;
  // Textual LLVM IR after optimisation, and the generated assembly, for inspection and tests.
  virtual const std::string& llvm_ir() const = 0;
  virtual const std::string& assembly() const = 0;
};

struct CodegenOptions {
  int opt_level = 3;           // 3: the kernel pipeline (llvm_backend.cc), or LLVM's O3 with llvm_o3
  bool llvm_o3 = false;        // LLVM's whole O3 pipeline: ~3x the compile time, for some configs more speed
  bool keep_llvm_ir = false;   // fill JitKernel::llvm_ir() / SharedLibrary::llvm_ir
  bool keep_assembly = false;  // fill JitKernel::assembly() / SharedLibrary::assembly
};

// Throws tf::CompileError naming the kernel and the reason.
std::unique_ptr<JitKernel> compile_jit(const ir::LoweredFunc& f, const Target& target, const CodegenOptions& opts = {});

struct SharedLibrary {
  std::vector<uint8_t> bytes;  // an ELF shared object for target.triple
  std::string entry_symbol;    // == f.name
  std::string llvm_ir, assembly;
};

// Emits an object file for the target and links it with ld.lld into a shared object that needs
// nothing but libc/libm at load time; its parallel loops call the launcher the loader installs.
SharedLibrary compile_shared_library(const ir::LoweredFunc& f, const Target& target, const CodegenOptions& opts = {});

}  // namespace tf::codegen

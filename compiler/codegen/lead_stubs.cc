// TEMPORARY (lead's branch only; replaced when the codegen branch merges).
#include "compiler/codegen/codegen.h"
#include "compiler/error.h"
namespace tf::codegen {
std::string Target::str() const { return "llvm -mtriple=" + triple + " -mcpu=" + cpu; }
Target host_target() { Target t; t.triple = "x86_64-pc-linux-gnu"; t.cpu = "znver4"; t.vector_bits = 256; return t; }
Target parse_target(const std::string& s) { if (s.rfind("llvm", 0) != 0) throw CompileError("unknown target '" + s + "'"); return host_target(); }
std::unique_ptr<JitKernel> compile_jit(const ir::LoweredFunc&, const Target&, const CodegenOptions&) { throw CompileError("codegen not merged yet"); }
SharedLibrary compile_shared_library(const ir::LoweredFunc&, const Target&, const CodegenOptions&) { throw CompileError("codegen not merged yet"); }
}

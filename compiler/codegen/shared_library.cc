// The board path: an object file for the target, linked by lld (as a library, in this process) into
// a shared object that needs nothing from LLVM at load time.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/codegen_llvm.h"
#include "compiler/codegen/llvm_backend.h"
#include "compiler/error.h"
#include "support/files.h"

namespace tf::codegen {
namespace {

// A private scratch folder, removed with everything in it when the scope ends.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tunefarm-link-XXXXXX";
    if (!mkdtemp(pattern.data())) throw CompileError("cannot create a scratch folder for linking in " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    for (const char* f : {"/kernel.o", "/kernel.so"}) ::unlink((path_ + f).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw CompileError("cannot write " + path);
}

// lld's ELF driver, in this process. It keeps its state in globals, so one link at a time; the
// context is torn down after each link so the next starts clean.
bool run_linker(const std::vector<std::string>& argv, std::string* log) {
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> lock(one_at_a_time);
  std::vector<const char*> args;
  args.reserve(argv.size());
  for (const auto& a : argv) args.push_back(a.c_str());
  llvm::raw_string_ostream out(*log);
  const bool ok = lld::elf::link(args, out, out, /*exitEarly=*/false, /*disableOutput=*/false);
  lld::CommonLinkerContext::destroy();
  out.flush();
  return ok;
}

}  // namespace

SharedLibrary compile_shared_library(const ir::LoweredFunc& f, const Target& target, const CodegenOptions& opts) {
  auto tm = make_target_machine(target, opts.opt_level);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = CodeGenLLVM(ctx, *tm, target).build(f);
  dump_module_if_asked(*m);
  optimize_module(*m, *tm, opts.opt_level, opts.llvm_o3);
  SharedLibrary lib;
  lib.entry_symbol = f.name;
  if (opts.keep_llvm_ir) lib.llvm_ir = module_to_string(*m);
  if (opts.keep_assembly) lib.assembly = emit_assembly(*m, *tm);
  const std::string object = emit_object(*m, *tm);

  ScratchDir dir;
  write_file(dir.path() + "/kernel.o", object);
  // No libraries: aligned_alloc, free and libm functions resolve against the loading process.
  const std::vector<std::string> argv = {
      "ld.lld", "-shared", "--hash-style=both", "-O1", "-o", dir.path() + "/kernel.so", dir.path() + "/kernel.o"};
  std::string log;
  if (!run_linker(argv, &log)) throw CompileError("linking kernel '" + f.name + "' with lld failed: " + log);
  const std::optional<std::string> so = try_read_file(dir.path() + "/kernel.so");
  if (!so) throw CompileError("kernel '" + f.name + "': lld wrote no readable kernel.so");
  lib.bytes.assign(so->begin(), so->end());
  return lib;
}

}  // namespace tf::codegen

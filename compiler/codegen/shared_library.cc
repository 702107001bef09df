// The board path: an object file for the target, linked by ld.lld into a shared object that needs
// nothing from LLVM at load time.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/codegen_llvm.h"
#include "compiler/codegen/llvm_backend.h"
#include "compiler/error.h"

extern char** environ;

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
    for (const char* f : {"/kernel.o", "/kernel.so", "/lld.log"}) ::unlink((path_ + f).c_str());
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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs ld.lld; returns its exit status and leaves its output in log_path.
int run_linker(const std::vector<std::string>& argv, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
  const std::vector<std::string> argv = {TF_LLD_PATH, "-shared", "--hash-style=both", "-O1", "-o", dir.path() + "/kernel.so",
                                         dir.path() + "/kernel.o"};
  int rc = run_linker(argv, dir.path() + "/lld.log");
  if (rc != 0) {
    throw CompileError("linking kernel '" + f.name + "' with " + TF_LLD_PATH + " failed (exit " + std::to_string(rc) +
                       "): " + read_file(dir.path() + "/lld.log"));
  }
  std::string so = read_file(dir.path() + "/kernel.so");
  lib.bytes.assign(so.begin(), so.end());
  return lib;
}

}  // namespace tf::codegen

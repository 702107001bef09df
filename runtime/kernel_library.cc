#include "runtime/kernel_library.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace tf::runtime {
namespace {

[[noreturn]] void fail(const std::string& symbol, const std::string& why) {
  throw std::runtime_error("kernel library for '" + symbol + "': " + why);
}

bool write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    default: return "ELF machine " + std::to_string(machine);
  }
}

#if defined(__x86_64__)
constexpr uint16_t kThisMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kThisMachine = EM_AARCH64;
#else
#error "tunefarm's runtime knows x86_64 and aarch64"
#endif

// A library for another architecture is refused by name before dlopen sees it: dlopen's own
// message ("wrong ELF class") does not say which board or which target went wrong.
void check_elf_header(const uint8_t* header, size_t size, const std::string& symbol) {
  static const uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(header, kElfMagic, 4) != 0) {
    fail(symbol, "not an ELF shared object (" + std::to_string(size) + " bytes)");
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, header, sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    fail(symbol, "not a 64-bit little-endian ELF library");
  }
  if (eh.e_machine != kThisMachine) {
    fail(symbol, "built for " + machine_name(eh.e_machine) + ", but this machine is " + machine_name(kThisMachine) +
                     ": the kernel was compiled for another target's triple");
  }
  if (eh.e_type != ET_DYN) fail(symbol, "an ELF file, but not a shared library");
}

}  // namespace

std::unique_ptr<KernelLibrary> KernelLibrary::open(const std::string& path, const std::string& entry_symbol) {
  // RTLD_LOCAL: two kernels with the same symbol (the same workload, two configs) must not
  // resolve to each other.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = ::dlerror();
    fail(entry_symbol, std::string("dlopen failed: ") + (err ? err : "unknown error"));
  }
  auto* entry = reinterpret_cast<TFKernelFn>(::dlsym(handle, entry_symbol.c_str()));
  if (!entry) {
    ::dlclose(handle);
    fail(entry_symbol, "the library has no symbol '" + entry_symbol + "'");
  }
  if (auto* slot = static_cast<TFParallelForFn*>(::dlsym(handle, TF_PARALLEL_FOR_SYMBOL))) {
    *slot = &tf_runtime_parallel_for;
  }
  if (auto* slot = static_cast<TFWorkspaceAllocFn*>(::dlsym(handle, TF_WORKSPACE_ALLOC_SYMBOL))) {
    *slot = &tf_runtime_workspace_alloc;
  }
  if (auto* slot = static_cast<TFWorkspaceFreeFn*>(::dlsym(handle, TF_WORKSPACE_FREE_SYMBOL))) {
    *slot = &tf_runtime_workspace_free;
  }
  return std::unique_ptr<KernelLibrary>(new KernelLibrary(handle, entry, entry_symbol));
}

std::unique_ptr<KernelLibrary> KernelLibrary::load(const std::vector<uint8_t>& bytes, const std::string& entry_symbol) {
  check_elf_header(bytes.data(), bytes.size(), entry_symbol);
  // An anonymous in-memory file: nothing on disk to clean up, even when the process is killed.
  int fd = static_cast<int>(::memfd_create(("tf-" + entry_symbol).c_str(), MFD_CLOEXEC));
  std::string path;
  std::string temp;
  if (fd >= 0) {
    path = "/proc/self/fd/" + std::to_string(fd);
  } else {
    temp = "/tmp/tf-kernel-XXXXXX";
    fd = ::mkstemp(temp.data());
    if (fd < 0) fail(entry_symbol, std::string("cannot create a file to load from: ") + std::strerror(errno));
    path = temp;
  }
  if (!write_all(fd, bytes.data(), bytes.size())) {
    int err = errno;
    ::close(fd);
    if (!temp.empty()) ::unlink(temp.c_str());
    fail(entry_symbol, std::string("cannot write the library: ") + std::strerror(err));
  }
  std::unique_ptr<KernelLibrary> lib;
  try {
    lib = open(path, entry_symbol);
  } catch (...) {
    ::close(fd);
    if (!temp.empty()) ::unlink(temp.c_str());
    throw;
  }
  if (temp.empty()) {
    // Held open while loaded: glibc recognises an already-loaded library by its path, so a reused
    // /proc/self/fd/N would hand back the previous kernel instead of loading this one.
    lib->fd_ = fd;
  } else {
    ::close(fd);
    ::unlink(temp.c_str());
  }
  return lib;
}

std::unique_ptr<KernelLibrary> KernelLibrary::load_file(const std::string& path, const std::string& entry_symbol) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(entry_symbol, "cannot read " + path + ": " + std::strerror(errno));
  uint8_t header[sizeof(Elf64_Ehdr)];
  const ssize_t got = ::pread(fd, header, sizeof header, 0);
  ::close(fd);
  check_elf_header(header, got > 0 ? static_cast<size_t>(got) : 0, entry_symbol);
  return open(path, entry_symbol);
}

KernelLibrary::~KernelLibrary() {
  if (handle_) ::dlclose(handle_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace tf::runtime

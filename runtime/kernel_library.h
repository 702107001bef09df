// Loads a kernel shared library (as produced by codegen::compile_shared_library) into this process
// without LLVM: from memory through an anonymous file, or from a path. Installs the runtime's
// parallel launcher into the library's `__tf_parallel_for` slot.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_abi.h"

namespace tf::runtime {

class KernelLibrary {
 public:
  // Throw std::runtime_error naming the entry symbol and the reason (not an ELF shared object,
  // dlopen's message, a missing entry symbol).
  static std::unique_ptr<KernelLibrary> load(const std::vector<uint8_t>& so_bytes, const std::string& entry_symbol);
  static std::unique_ptr<KernelLibrary> load_file(const std::string& path, const std::string& entry_symbol);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  TFKernelFn entry() const { return entry_; }
  const std::string& entry_symbol() const { return symbol_; }

 private:
  KernelLibrary(void* handle, TFKernelFn entry, std::string symbol)
      : handle_(handle), entry_(entry), symbol_(std::move(symbol)) {}
  static std::unique_ptr<KernelLibrary> open(const std::string& path, const std::string& entry_symbol);

  void* handle_;
  int fd_ = -1;  // the anonymous file it was loaded from, held open (see load())
  TFKernelFn entry_;
  std::string symbol_;
};

}  // namespace tf::runtime

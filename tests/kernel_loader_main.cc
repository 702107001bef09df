// tf_kernel_loader: loads a kernel shared library with dlopen and runs it once, linking only the
// small runtime, exactly as a board does. Tests use it to prove the shared-library path needs no
// LLVM at load time.
//
//   tf_kernel_loader LIB.so ENTRY SPEC_FILE [--threads N]
//
// SPEC_FILE has one line per kernel argument, in ABI order:  <dtype> <ndim> <d0> ... <raw-file>
// Each raw file holds the argument's little-endian elements; after the run every argument is
// written back to its file, so the caller reads the outputs there.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/kernel_library.h"
#include "runtime/thread_pool.h"

namespace {

struct Arg {
  std::vector<int64_t> shape;
  int32_t code = TF_DTYPE_FLOAT, bits = 32;
  std::string path;
  void* data = nullptr;
  size_t bytes = 0;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::cerr << "tf_kernel_loader: " << msg << "\n";
  std::exit(2);
}

bool parse_dtype(const std::string& s, int32_t* code, int32_t* bits) {
  static const struct {
    const char* name;
    int32_t code, bits;
  } kTypes[] = {{"float32", TF_DTYPE_FLOAT, 32}, {"float64", TF_DTYPE_FLOAT, 64}, {"int32", TF_DTYPE_INT, 32},
                {"int64", TF_DTYPE_INT, 64},     {"int8", TF_DTYPE_INT, 8},       {"uint8", TF_DTYPE_UINT, 8}};
  for (const auto& t : kTypes) {
    if (s == t.name) {
      *code = t.code;
      *bits = t.bits;
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) usage_error("usage: tf_kernel_loader LIB.so ENTRY SPEC_FILE [--threads N]");
  const std::string lib_path = argv[1], entry = argv[2], spec_path = argv[3];
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      tf::runtime::set_num_threads(std::atoi(argv[++i]));
    } else {
      usage_error(std::string("unknown option '") + argv[i] + "'");
    }
  }
  std::ifstream spec(spec_path);
  if (!spec) usage_error("cannot read spec file " + spec_path);
  std::vector<Arg> args;
  std::string line;
  while (std::getline(spec, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    Arg a;
    std::string dtype;
    int ndim = -1;
    if (!(in >> dtype >> ndim) || ndim < 0 || ndim > 8) usage_error("bad spec line: " + line);
    if (!parse_dtype(dtype, &a.code, &a.bits)) usage_error("unknown dtype '" + dtype + "' in: " + line);
    size_t count = 1;
    for (int d = 0; d < ndim; ++d) {
      int64_t e = -1;
      if (!(in >> e) || e < 0) usage_error("bad extent in: " + line);
      a.shape.push_back(e);
      count *= static_cast<size_t>(e);
    }
    if (!(in >> a.path)) usage_error("missing data file in: " + line);
    a.bytes = count * static_cast<size_t>(a.bits / 8);
    std::ifstream f(a.path, std::ios::binary | std::ios::ate);
    if (!f) usage_error("cannot read " + a.path);
    if (static_cast<size_t>(f.tellg()) != a.bytes) {
      usage_error(a.path + " holds " + std::to_string(static_cast<long long>(f.tellg())) + " bytes, the spec needs " +
                  std::to_string(a.bytes));
    }
    a.data = std::aligned_alloc(TF_BUFFER_ALIGNMENT,
                                (a.bytes + TF_BUFFER_ALIGNMENT) / TF_BUFFER_ALIGNMENT * TF_BUFFER_ALIGNMENT);
    f.seekg(0);
    f.read(static_cast<char*>(a.data), static_cast<std::streamsize>(a.bytes));
    args.push_back(std::move(a));
  }

  std::unique_ptr<tf::runtime::KernelLibrary> lib;
  try {
    lib = tf::runtime::KernelLibrary::load_file(lib_path, entry);
  } catch (const std::exception& e) {
    usage_error(e.what());
  }
  bool llvm_loaded = false;
  {
    std::ifstream maps("/proc/self/maps");
    std::string m;
    while (std::getline(maps, m)) llvm_loaded |= m.find("libLLVM") != std::string::npos;
  }
  std::vector<TFBuffer> buffers;
  for (const auto& a : args) {
    buffers.push_back(TFBuffer{a.data, a.shape.data(), static_cast<int32_t>(a.shape.size()), a.code, a.bits, 0});
  }
  int32_t status = lib->entry()(buffers.data(), static_cast<int32_t>(buffers.size()));
  std::cout << "status " << status << " " << tf_kernel_status_str(status) << "\n";
  std::cout << "libllvm_loaded " << (llvm_loaded ? 1 : 0) << "\n";
  for (const auto& a : args) {
    std::ofstream f(a.path, std::ios::binary | std::ios::trunc);
    f.write(static_cast<const char*>(a.data), static_cast<std::streamsize>(a.bytes));
    std::free(a.data);
  }
  return status == TF_OK ? 0 : 1;
}

// Target descriptions: "llvm -mtriple=x86_64-linux-gnu -mcpu=znver4 -mattr=+avx2,+fma".
#pragma once

#include <string>

namespace tf::codegen {

struct Target {
  std::string triple;    // e.g. x86_64-pc-linux-gnu
  std::string cpu;       // e.g. znver4; "native" resolved to the host's name by parse_target
  std::string features;  // comma list, e.g. +avx2,+fma,-avx512f
  // Natural vector width in bits for float32 (256 for AVX2, 512 for AVX-512), for templates.
  int vector_bits = 128;

  std::string str() const;  // canonical "llvm -mtriple=... -mcpu=... -mattr=..."
  int float32_lanes() const { return vector_bits / 32; }
};

// Parses a target string. "llvm" or "llvm -mcpu=native" is the host (triple, CPU name and
// features detected). Throws tf::CompileError on anything else it cannot honour: an unknown
// option, a triple LLVM has no backend for, a CPU the backend does not know.
Target parse_target(const std::string& s);

Target host_target();

// Whether code for `target` can run in this process: same architecture and OS, and no CPU feature
// the host lacks. When not, `why` says which.
bool host_can_run(const Target& target, std::string* why = nullptr);

}  // namespace tf::codegen

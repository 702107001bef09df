// Target descriptions: "llvm -mtriple=x86_64-linux-gnu -mcpu=znver4 -mattr=+avx2,+fma".
#pragma once

#include <string>
#include <vector>

namespace tf::codegen {

struct Target {
  std::string triple;    // e.g. x86_64-pc-linux-gnu
  std::string cpu;       // e.g. znver4; "native" resolved to the host's name by parse_target
  std::string features;  // comma list, e.g. +avx2,+fma,-avx512f
  // Natural vector width in bits for float32 (256 for AVX2, 512 for AVX-512), for templates.
  int vector_bits = 128;
  // Architectural vector registers (AVX-512 and AArch64: 32; AVX2 and SSE: 16): how many
  // accumulators a register tile may hold beside the operands it loads.
  int vector_registers = 16;

  std::string str() const;  // canonical "llvm -mtriple=... -mcpu=... -mattr=..."
  int float32_lanes() const { return vector_bits / 32; }
};

// Parses a target string. "native", "llvm" and "llvm -mcpu=native" are the host: host_target(),
// with any -mattr= given applied on top. Throws tf::CompileError on anything else it cannot honour:
// an unknown option, a triple LLVM has no backend for, a CPU or feature the backend does not know.
Target parse_target(const std::string& s);

// This machine, described the way a board describes itself (its triple and cpuinfo flags, through
// target_from_cpu_flags): a board and a local command on one machine use the same target string,
// so their records, cost models and best configs are one set.
Target host_target();

// The target for a machine described the way a board without LLVM can describe itself: its triple
// and its /proc/cpuinfo flags (e.g. "avx512f", "sse4_1"). On x86 the CPU is the highest x86-64
// level (v2, v3, v4) the flags cover, plus every further flag LLVM knows as a feature. Throws
// tf::CompileError for a triple LLVM has no backend for.
Target target_from_cpu_flags(const std::string& triple, const std::vector<std::string>& flags);

// Whether code for `target` can run in this process: same architecture and OS, and no instruction
// set feature the CPU lacks (a CPU name's tuning does not count). When not, `why` names them.
bool host_can_run(const Target& target, std::string* why = nullptr);

// Machines of one kind: same architecture, OS and CPU (on x86 the x86-64 level, v4 meaning
// AVX-512), where the relative speed of configs carries over from one to the other.
bool same_kind(const Target& a, const Target& b);

// Whether `target` has a one-instruction 4-way uint8 x int8 dot product at its vector width
// (VNNI's vpdpbusd, AArch64's usdot): without it an int8 step holds constants and partial products
// in registers the accumulators would otherwise take.
bool has_u8s8_dot_instruction(const Target& target);

// Whether int8 kernels on `target` should take their activations centred on 128
// (ir::Intrinsic::DotU8S8Centered): x86 without a one-instruction 4-way dot product (VNNI), where
// centring makes the exact product three multiply-add steps rather than six (codegen/dot_product.h).
bool prefers_centered_int8(const Target& target);

// This host as LLVM names it (its CPU name plus the features that differ from what the name
// implies): the string databases written before host_target() took the board's form hold this
// machine's local records under. Empty when LLVM has no backend for the host.
std::string llvm_named_host_target();

}  // namespace tf::codegen

// What a board knows about itself without LLVM: host name, triple, CPU model and flags (x86:
// /proc/cpuinfo; AArch64: the kernel's HWCAP bits, which an emulator reports for the guest), whether
// it runs emulated, the CPUs it may use, memory. The tracker turns the flags into a target.
#pragma once

#include <string>
#include <vector>

#include "proto/tunefarm.pb.h"

namespace tf::board {

namespace v1 = ::tunefarm::v1;

// `cpus`: the CPUs the board's kernels are pinned to (empty: every CPU the process may use).
v1::BoardInfo detect_board(const std::string& key, const std::vector<int>& cpus, int threads);

// The AArch64 HWCAP and HWCAP2 bits as /proc/cpuinfo names them ("fp", "asimd", "atomics", ...).
std::vector<std::string> aarch64_hwcap_names(unsigned long hwcap, unsigned long hwcap2);

// "0,2-3" -> {0, 2, 3}; throws std::invalid_argument naming the bad part.
std::vector<int> parse_cpu_list(const std::string& s);

}  // namespace tf::board

// This machine's CPU as Linux describes it, read without LLVM: a board reports it to the tracker, and
// the compiler turns the same description into the host's target (codegen::host_target), so a
// board and a local command on one machine name its CPU with one target string.
#pragma once

#include <string>
#include <vector>

namespace tf::runtime {

struct HostCpu {
  std::string triple;              // the triple this binary runs as, e.g. x86_64-pc-linux-gnu
  std::string model;               // "model name" (x86), or implementer and part (ARM); may be empty
  std::vector<std::string> flags;  // x86: /proc/cpuinfo "flags"; AArch64: the HWCAP bits' names
  // The architecture of the kernel underneath: under an emulator such as qemu-user it differs from
  // the triple's. Empty when nothing tells.
  std::string kernel_arch;
};

// Read once per process.
const HostCpu& host_cpu();

// The AArch64 HWCAP and HWCAP2 bits as /proc/cpuinfo names them ("fp", "asimd", "atomics", ...).
std::vector<std::string> aarch64_hwcap_names(unsigned long hwcap, unsigned long hwcap2);

}  // namespace tf::runtime

#include "runtime/host_cpu.h"

#include <sys/auxv.h>

#include <fstream>
#include <iterator>
#include <sstream>

namespace tf::runtime {
namespace {

std::string compiled_arch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct CpuInfo {
  std::string model;
  std::vector<std::string> flags;  // "flags" (x86) or "Features" (ARM)
  bool x86_layout = false;         // has x86's "vendor_id"
  bool arm_layout = false;         // has ARM's "CPU implementer"
};

CpuInfo read_cpuinfo() {
  CpuInfo out;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, implementer, part;
  bool have_flags = false;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (name == "model name" && out.model.empty()) out.model = value;
    if (name == "vendor_id") out.x86_layout = true;
    if (name == "CPU implementer" && implementer.empty()) implementer = value, out.arm_layout = true;
    if (name == "CPU part" && part.empty()) part = value;
    if ((name == "flags" || name == "Features") && !have_flags) {
      std::istringstream words(value);
      std::string f;
      while (words >> f) out.flags.push_back(f);
      have_flags = true;
    }
  }
  if (out.model.empty() && !implementer.empty()) out.model = "ARM implementer " + implementer + " part " + part;
  return out;
}

// qemu-user answers uname() for the guest but passes /proc/sys/kernel/arch (Linux 6.1 and later)
// and, for AArch64 guests before qemu 8.1, the host's /proc/cpuinfo through.
std::string kernel_arch(const CpuInfo& cpu) {
  std::ifstream arch_file("/proc/sys/kernel/arch");
  std::string arch;
  if (arch_file >> arch && !arch.empty()) return arch;
  if (cpu.x86_layout) return "x86_64";
  if (cpu.arm_layout) return "aarch64";
  return "";
}

HostCpu detect() {
  HostCpu host;
  const std::string arch = compiled_arch();
  host.triple = arch + (arch == "x86_64" ? "-pc-linux-gnu" : "-unknown-linux-gnu");
  CpuInfo cpu = read_cpuinfo();
  host.model = cpu.model;
  host.kernel_arch = kernel_arch(cpu);
#if defined(__aarch64__)
  // The auxiliary vector describes the CPU this process sees, emulated or not; cpuinfo may be the
  // emulator's host's.
  host.flags = aarch64_hwcap_names(::getauxval(AT_HWCAP), ::getauxval(AT_HWCAP2));
#else
  host.flags = std::move(cpu.flags);
#endif
  return host;
}

}  // namespace

const HostCpu& host_cpu() {
  static const HostCpu host = detect();
  return host;
}

std::vector<std::string> aarch64_hwcap_names(unsigned long hwcap, unsigned long hwcap2) {
  // Linux's arch/arm64/include/uapi/asm/hwcap.h, bit by bit, in /proc/cpuinfo's spelling.
  static const char* const kHwcap[] = {"fp",      "asimd", "evtstrm", "aes",   "pmull",    "sha1",   "sha2", "crc32",
                                       "atomics", "fphp",  "asimdhp", "cpuid", "asimdrdm", "jscvt",  "fcma", "lrcpc",
                                       "dcpop",   "sha3",  "sm3",     "sm4",   "asimddp",  "sha512", "sve",  "asimdfhm",
                                       "dit",     "uscat", "ilrcpc",  "flagm", "ssbs",     "sb",     "paca", "pacg"};
  static const char* const kHwcap2[] = {"dcpodp",  "sve2",   "sveaes", "svepmull", "svebitperm", "svesha3",
                                        "svesm4",  "flagm2", "frint",  "svei8mm",  "svef32mm",   "svef64mm",
                                        "svebf16", "i8mm",   "bf16",   "dgh",      "rng",        "bti"};
  std::vector<std::string> out;
  for (size_t bit = 0; bit < std::size(kHwcap); ++bit) {
    if (hwcap & (1UL << bit)) out.push_back(kHwcap[bit]);
  }
  for (size_t bit = 0; bit < std::size(kHwcap2); ++bit) {
    if (hwcap2 & (1UL << bit)) out.push_back(kHwcap2[bit]);
  }
  return out;
}

}  // namespace tf::runtime

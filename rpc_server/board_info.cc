#include "rpc_server/board_info.h"

#include <sys/auxv.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "runtime/thread_pool.h"

namespace tf::board {
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

std::string host_triple() {
  const std::string arch = compiled_arch();
  return arch + (arch == "x86_64" ? "-pc-linux-gnu" : "-unknown-linux-gnu");
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct CpuInfo {
  std::string model;               // "model name" (x86), or implementer and part (ARM)
  std::vector<std::string> flags;  // "flags" (x86) or "Features" (ARM)
  bool x86_layout = false;         // has x86's "vendor_id" and "flags"
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

// The architecture of the kernel this process runs on. An emulator such as qemu-user answers
// uname() for the guest, but passes /proc/sys/kernel/arch (Linux 6.1 and later) and, for
// AArch64 guests before qemu 8.1, the host's /proc/cpuinfo through. Empty when neither tells.
std::string kernel_arch(const CpuInfo& cpu) {
  std::ifstream arch_file("/proc/sys/kernel/arch");
  std::string arch;
  if (arch_file >> arch && !arch.empty()) return arch;
  if (cpu.x86_layout) return "x86_64";
  if (cpu.arm_layout) return "aarch64";
  return "";
}


}  // namespace

std::vector<std::string> aarch64_hwcap_names(unsigned long hwcap, unsigned long hwcap2) {
  // Linux's arch/arm64/include/uapi/asm/hwcap.h, bit by bit, in /proc/cpuinfo's spelling.
  static const char* const kHwcap[] = {"fp",    "asimd", "evtstrm", "aes",     "pmull",  "sha1",   "sha2",    "crc32",
                                       "atomics", "fphp", "asimdhp", "cpuid",  "asimdrdm", "jscvt", "fcma",   "lrcpc",
                                       "dcpop", "sha3",  "sm3",     "sm4",     "asimddp", "sha512", "sve",    "asimdfhm",
                                       "dit",   "uscat", "ilrcpc",  "flagm",   "ssbs",   "sb",     "paca",   "pacg"};
  static const char* const kHwcap2[] = {"dcpodp", "sve2",   "sveaes", "svepmull", "svebitperm", "svesha3", "svesm4", "flagm2",
                                        "frint",  "svei8mm", "svef32mm", "svef64mm", "svebf16", "i8mm", "bf16", "dgh",
                                        "rng",    "bti"};
  std::vector<std::string> out;
  for (size_t bit = 0; bit < std::size(kHwcap); ++bit) {
    if (hwcap & (1UL << bit)) out.push_back(kHwcap[bit]);
  }
  for (size_t bit = 0; bit < std::size(kHwcap2); ++bit) {
    if (hwcap2 & (1UL << bit)) out.push_back(kHwcap2[bit]);
  }
  return out;
}

std::vector<int> parse_cpu_list(const std::string& s) {
  std::vector<int> out;
  std::istringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto dash = part.find('-');
    try {
      size_t used = 0;
      if (dash == std::string::npos) {
        out.push_back(std::stoi(part, &used));
        if (used != part.size()) throw std::invalid_argument(part);
      } else {
        const int lo = std::stoi(part.substr(0, dash)), hi = std::stoi(part.substr(dash + 1));
        if (lo > hi) throw std::invalid_argument(part);
        for (int c = lo; c <= hi; ++c) out.push_back(c);
      }
    } catch (const std::exception&) {
      throw std::invalid_argument("'" + part + "' is not a CPU number or range (e.g. 0,2-3)");
    }
  }
  for (int c : out) {
    if (c < 0 || c >= CPU_SETSIZE) throw std::invalid_argument("CPU " + std::to_string(c) + " is out of range");
  }
  if (out.empty()) throw std::invalid_argument("no CPUs listed");
  return out;
}

v1::BoardInfo detect_board(const std::string& key, const std::vector<int>& cpus, int threads) {
  v1::BoardInfo info;
  info.set_device_key(key);
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  info.set_hostname(host);
  info.set_target_triple(host_triple());
  const CpuInfo cpu = read_cpuinfo();
#if defined(__aarch64__)
  for (const std::string& f : aarch64_hwcap_names(::getauxval(AT_HWCAP), ::getauxval(AT_HWCAP2))) info.add_cpu_features(f);
#else
  for (const std::string& f : cpu.flags) info.add_cpu_features(f);
#endif
  info.set_cpu_name(cpu.model.empty() ? compiled_arch() : cpu.model);
  const std::string kernel = kernel_arch(cpu);
  if (!kernel.empty() && kernel != compiled_arch()) {
    info.set_emulated(true);
    info.set_cpu_name(compiled_arch() + ", emulated on an " + kernel + " host" + (cpu.model.empty() ? "" : " (" + cpu.model + ")"));
  }
  info.set_cores(static_cast<int32_t>(cpus.empty() ? runtime::usable_cpus().size() : cpus.size()));
  for (int c : cpus) info.add_pinned_cpus(c);
  info.set_threads(threads > 0 ? threads : info.cores());
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemTotal:", 0) == 0) {
      info.set_memory_bytes(std::stoll(line.substr(9)) * 1024);
      break;
    }
  }
  info.set_runtime_version(std::string("tunefarm-runtime ") + TUNEFARM_VERSION);
  info.set_protocol_version(1);
  info.set_pid(static_cast<int32_t>(::getpid()));
  return info;
}

}  // namespace tf::board

#include "rpc_server/board_info.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runtime/host_cpu.h"
#include "runtime/thread_pool.h"

namespace tf::board {

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
  const runtime::HostCpu& cpu = runtime::host_cpu();
  info.set_target_triple(cpu.triple);
  for (const std::string& f : cpu.flags) info.add_cpu_features(f);
  const std::string arch = cpu.triple.substr(0, cpu.triple.find('-'));
  info.set_cpu_name(cpu.model.empty() ? arch : cpu.model);
  if (!cpu.kernel_arch.empty() && cpu.kernel_arch != arch) {
    info.set_emulated(true);
    info.set_cpu_name(arch + ", emulated on an " + cpu.kernel_arch + " host" +
                      (cpu.model.empty() ? "" : " (" + cpu.model + ")"));
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

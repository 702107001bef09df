#include "rpc_server/board_info.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runtime/thread_pool.h"

namespace tf::board {
namespace {

std::string host_triple() {
#if defined(__x86_64__)
  return "x86_64-pc-linux-gnu";
#elif defined(__aarch64__)
  return "aarch64-unknown-linux-gnu";
#else
  return "unknown-unknown-linux-gnu";
#endif
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

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
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool have_flags = false;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (name == "model name" && info.cpu_name().empty()) info.set_cpu_name(value);
    if ((name == "flags" || name == "Features") && !have_flags) {
      std::istringstream words(value);
      std::string f;
      while (words >> f) info.add_cpu_features(f);
      have_flags = true;
    }
  }
  info.set_cores(static_cast<int32_t>(cpus.empty() ? runtime::usable_cpus().size() : cpus.size()));
  for (int c : cpus) info.add_pinned_cpus(c);
  info.set_threads(threads > 0 ? threads : info.cores());
  std::ifstream meminfo("/proc/meminfo");
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

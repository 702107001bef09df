#include "runtime/last_level_cache.h"

#include <cstdlib>
#include <fstream>

namespace tf::runtime {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// sysfs writes sizes as "32768K" (or "32M", or bytes).
uint64_t parse_size(const std::string& text) {
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  const char unit = used < text.size() ? text[used] : ' ';
  if (unit == 'K') return v << 10;
  if (unit == 'M') return v << 20;
  if (unit == 'G') return v << 30;
  return v;
}

}  // namespace

LastLevelCache last_level_cache(const std::string& sysfs_cpu0) {
  LastLevelCache best;
  int best_level = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = sysfs_cpu0 + "/cache/index" + std::to_string(i);
    const std::string level = read_line(dir + "/level");
    if (level.empty()) continue;
    const std::string type = read_line(dir + "/type");
    if (type == "Instruction") continue;
    const uint64_t bytes = parse_size(read_line(dir + "/size"));
    const int l = std::atoi(level.c_str());
    if (bytes == 0 || l < best_level) continue;
    best_level = l;
    best.bytes = bytes;
    best.source = dir;
  }
  if (best_level == 0) best.source = "assumed: no cache sizes in " + sysfs_cpu0 + "/cache";
  return best;
}

}  // namespace tf::runtime

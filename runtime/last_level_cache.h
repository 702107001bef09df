// The size of this machine's last-level cache, as Linux describes it: what a cold timing
// (runtime/cold_inputs.h) must outgrow so that no run finds its inputs cached by the run before.
#pragma once

#include <cstdint>
#include <string>

namespace tf::runtime {

// The LLC assumed where Linux does not describe the caches (many VMs have no cache/ in sysfs, and
// their CPUID may report the whole host's L3 as one).
constexpr uint64_t kAssumedLlcBytes = uint64_t{32} << 20;

struct LastLevelCache {
  uint64_t bytes = kAssumedLlcBytes;
  std::string source;  // "/sys/devices/system/cpu/cpu0/cache/index3", or why it is assumed
};

// The highest-level data or unified cache of cpu0 under `sysfs_cpu0`. A worker reads it before it
// confines itself: its sandbox hides /sys.
LastLevelCache last_level_cache(const std::string& sysfs_cpu0 = "/sys/devices/system/cpu/cpu0");

}  // namespace tf::runtime

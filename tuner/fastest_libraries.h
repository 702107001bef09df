// The built libraries of a tuning job's fastest trials so far, so that measuring the fastest again
// at the end of the job (tune_job.cc) need not build them again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "compiler/codegen/codegen.h"

namespace tf::tuner {

class FastestLibraries {
 public:
  explicit FastestLibraries(size_t keep) : keep_(keep) {}
  // Keeps `lib` when its trial is among the `keep` fastest so far, dropping the slowest kept one.
  void offer(int64_t config_index, double gflops, codegen::SharedLibrary lib);
  // Null when the config's library is not kept.
  const codegen::SharedLibrary* find(int64_t config_index) const;

 private:
  size_t keep_;
  std::multimap<double, int64_t> by_speed_;              // GFLOPS -> config index, slowest first
  std::map<int64_t, codegen::SharedLibrary> libraries_;  // by config index
};

}  // namespace tf::tuner

#include "tuner/fastest_libraries.h"

#include <utility>

namespace tf::tuner {

void FastestLibraries::offer(int64_t config_index, double gflops, codegen::SharedLibrary lib) {
  if (keep_ == 0) return;
  if (by_speed_.size() >= keep_ && gflops <= by_speed_.begin()->first) return;
  by_speed_.emplace(gflops, config_index);
  libraries_[config_index] = std::move(lib);
  while (by_speed_.size() > keep_) {
    libraries_.erase(by_speed_.begin()->second);
    by_speed_.erase(by_speed_.begin());
  }
}

const codegen::SharedLibrary* FastestLibraries::find(int64_t config_index) const {
  auto it = libraries_.find(config_index);
  return it == libraries_.end() ? nullptr : &it->second;
}

}  // namespace tf::tuner

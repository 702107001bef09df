#include "tuner/best_configs.h"

#include <algorithm>

namespace tf::tuner {

const std::optional<BestConfigs::Best>& BestConfigs::best(const ops::Workload& w) const {
  auto [it, fresh] = cache_.try_emplace(w.str());
  if (fresh && db_) {
    auto record = db_->best(w.op, w.shape, target_, device_key_, timing_);
    if (!record) record = db_->best(w.op, w.shape, target_, device_key_);
    if (record) it->second = Best{record->config.dump(), std::max(0.0, record->mean_s()), record->timing};
  }
  return it->second;
}

std::optional<std::string> BestConfigs::config(const ops::Workload& w) const {
  const auto& b = best(w);
  if (!b) return std::nullopt;
  return b->config;
}

std::optional<double> BestConfigs::seconds(const ops::Workload& w) const {
  const auto& b = best(w);
  if (!b || b->seconds <= 0) return std::nullopt;
  return b->seconds;
}

std::vector<std::string> BestConfigs::other_timings() const {
  std::vector<std::string> out;
  for (const auto& [workload, b] : cache_) {
    if (b && b->timing != timing_) out.push_back(workload);
  }
  return out;
}

}  // namespace tf::tuner

#include "tuner/best_configs.h"

#include <algorithm>

namespace tf::tuner {

const std::optional<BestConfigs::Best>& BestConfigs::best(const ops::Workload& w) const {
  auto [it, fresh] = cache_.try_emplace(w.str());
  if (fresh && db_) {
    if (const auto record = db_->best(w.op, w.shape, target_, device_key_)) it->second = Best{record->config.dump(), std::max(0.0, record->mean_s())};
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

}  // namespace tf::tuner

#include "tuner/best_configs.h"

namespace tf::tuner {

std::optional<std::string> BestConfigs::config(const ops::Workload& w) const {
  if (!db_) return std::nullopt;
  const auto best = db_->best(w.op, w.shape, target_, device_key_);
  if (!best) return std::nullopt;
  return best->config.dump();
}

std::optional<double> BestConfigs::seconds(const ops::Workload& w) const {
  if (!db_) return std::nullopt;
  const auto best = db_->best(w.op, w.shape, target_, device_key_);
  if (!best || best->mean_s() <= 0) return std::nullopt;
  return best->mean_s();
}

}  // namespace tf::tuner

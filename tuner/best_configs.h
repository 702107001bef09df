// What a model build reads from a tuning database: for each workload, the best config measured on
// one target under one device key (its JSON text) and that config's seconds per call (how
// plan_graph picks among a node's alternative kernels).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "compiler/ops/operator.h"
#include "db/database.h"

namespace tf::tuner {

class BestConfigs {
 public:
  // `db` outlives this; null: nothing measured.
  BestConfigs(db::Database* db, std::string target, std::string device_key)
      : db_(db), target_(std::move(target)), device_key_(std::move(device_key)) {}

  std::optional<std::string> config(const ops::Workload& w) const;
  std::optional<double> seconds(const ops::Workload& w) const;

 private:
  struct Best {
    std::string config;
    double seconds = 0;  // 0: not timed
  };
  // One query per workload, however often a build asks (planning, then each kernel's config).
  const std::optional<Best>& best(const ops::Workload& w) const;

  db::Database* db_;
  std::string target_, device_key_;
  mutable std::map<std::string, std::optional<Best>> cache_;
};

}  // namespace tf::tuner

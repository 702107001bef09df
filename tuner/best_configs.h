// What a model build reads from a tuning database: for each workload, the best config measured on
// one target under one device key (its JSON text) and that config's seconds per call (how
// plan_graph picks among a node's alternative kernels).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/operator.h"
#include "db/database.h"
#include "runtime/measure.h"

namespace tf::tuner {

class BestConfigs {
 public:
  // `db` outlives this; null: nothing measured. `timing`: how the model will run its kernels, and
  // so which records count first (a model reads each layer's weights from memory: cold-weights); a
  // workload with no record of that timing takes its best of any timing.
  BestConfigs(db::Database* db, std::string target, std::string device_key,
              runtime::ColdInputs timing = runtime::ColdInputs::Weights)
      : db_(db), target_(std::move(target)), device_key_(std::move(device_key)), timing_(timing) {}

  std::optional<std::string> config(const ops::Workload& w) const;
  std::optional<double> seconds(const ops::Workload& w) const;
  // The workloads asked for so far whose config was timed otherwise than `timing`, for the output.
  std::vector<std::string> other_timings() const;

 private:
  struct Best {
    std::string config;
    double seconds = 0;  // 0: not timed
    runtime::ColdInputs timing = runtime::ColdInputs::Off;
  };
  // One query per workload, however often a build asks (planning, then each kernel's config).
  const std::optional<Best>& best(const ops::Workload& w) const;

  db::Database* db_;
  std::string target_, device_key_;
  runtime::ColdInputs timing_;
  mutable std::map<std::string, std::optional<Best>> cache_;
};

}  // namespace tf::tuner

// What the models benchmark does with tuning: a model's tasks tuned by `tunefarm model tune`'s own
// path on this host (graph/model_tune.h), the model built from a db's best configs, and the
// measured latency along the way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/database.h"
#include "graph/graph.h"
#include "graph/model_tune.h"
#include "runtime/measure.h"
#include "runtime/model/executor.h"
#include "tuner/task_scheduler.h"

namespace tf::bench {

// The imported model planned and built with the db's best config of each kernel for this target and
// thread count (the default where the db has none; each node's fastest measured alternative): what
// `tunefarm model build --db` builds.
// `planned`, when given, receives the plan built. Records timed as `timing` count first
// (tuner::BestConfigs).
std::unique_ptr<runtime::model::Executor> build_from_db(const graph::Graph& imported, const std::string& target,
                                                        int threads, db::Database* db, graph::Graph* planned = nullptr,
                                                        bool graph_layouts = true,
                                                        runtime::ColdInputs timing = runtime::ColdInputs::Weights);

struct ModelTuneRun {
  // What `tunefarm model tune` reports: trials, wall time, the estimate, the measured latency and
  // the machine's drift.
  graph::ModelTuneResult result;
  struct Point {
    int64_t trials = 0;
    double estimated_ms = 0;
    double measured_ms = 0;  // the model built then and timed; 0 where it was not
  };
  std::vector<Point> curve;  // after each batch
};

struct ModelTuneSettings {
  std::string target = "native";
  int threads = 1;
  int64_t trials = 2000;
  double time_limit_s = 0;  // no batch starts after it (`model tune --time-limit`); 0: none
  tuner::SchedulerPolicy scheduler = tuner::SchedulerPolicy::Gradient;
  double min_repeat_ms = 20;
  // Every this many trials (0: never), the model is built from the db and `measure` times it
  // (median ms); the tuning waits meanwhile, so nothing else runs while it is timed.
  int64_t checkpoint = 0;
  std::function<double(runtime::model::Executor&)> measure;
  std::string timing_lock = "/tmp/tunefarm-timing.lock";  // held while the default build is timed
  // As `model tune --layouts graph`: each blocked conv's channel blocks are alternatives and the
  // conversions between blocks are measured, so a build plans the blocks for the whole graph.
  bool graph_layouts = false;
};

// The tasks of the imported model's default plan, alternatives included, tuned as `tunefarm model
// tune` tunes them (their weights cold, as the model reads them); `name` names the model in the job.
ModelTuneRun tune_model_tasks(const graph::Graph& imported, const std::string& name, const ModelTuneSettings& s,
                              db::Database& db);

}  // namespace tf::bench

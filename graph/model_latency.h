// A model built on this host (with a database's best configs and fastest alternatives, or the
// defaults) and timed as `tunefarm model bench` times it: what `model tune` adds to its kernel
// estimate (the untuned nodes and layout transforms, measured once) and what it checks its
// prediction against at the end.
#pragma once

#include <string>

#include "compiler/codegen/target.h"
#include "db/database.h"
#include "graph/build.h"
#include "graph/graph.h"
#include "graph/latency_breakdown.h"
#include "runtime/measure.h"
#include "runtime/model/model_file.h"
#include "tuner/tune_tasks.h"

namespace tf::graph {

struct MeasuredModel {
  double median_ms = 0;
  graph::LatencyBreakdown parts;  // per-step medians by kind
};

// Where a build's configs come from and how it plans.
struct DbBuildOptions {
  int threads = 1;
  db::Database* db = nullptr;  // null: the default configs
  std::string device_key;      // whose records count: the thread count's device key on this host
  // Which records count first (tuner::BestConfigs): how the model will run its kernels.
  runtime::ColdInputs timing = runtime::ColdInputs::Weights;
  // false: each conv keeps its own channel blocks (what planning the layouts for the whole graph
  // buys is the difference).
  bool graph_layouts = true;
};

struct DbBuild {
  runtime::model::ModelFile file;
  graph::Graph planned;
  graph::BuildReport report;
};

// The imported model planned and built with the db's best configs and fastest alternatives for
// this target, thread count and device key.
DbBuild build_with_db(const graph::Graph& imported, const codegen::Target& target, const DbBuildOptions& o);

// `db` null: default configs. Holds the host-wide timing lock `lock_file` while timing.
MeasuredModel measure_model_here(const graph::Graph& imported, const codegen::Target& target, int threads,
                                 db::Database* db, const std::string& device_key, const std::string& lock_file,
                                 runtime::ColdInputs timing = runtime::ColdInputs::Weights);

// What a model job's in-model checkpoints read (tuner::TuneTasksOptions::time_in_model): the model
// built with `db`'s best configs so far and timed once; per workload of `tasks`, a call's seconds in
// the run and its config's recorded seconds alone.
tuner::InModelTimes time_tasks_in_model(const graph::Graph& imported, const codegen::Target& target, int threads,
                                        db::Database& db, const std::string& device_key, const std::string& lock_file,
                                        runtime::ColdInputs timing, const std::vector<ops::Workload>& tasks);

// The model built with `db`'s best configs, timed in rounds that alternate with the default build.
// A shared machine's speed drifts by tens of percent over the minutes a search takes: the default
// build timed again beside the tuned one tells that drift (default_ms against its time before the
// search) apart from an error of the estimate.
struct MeasuredBesideDefaults {
  MeasuredModel tuned;
  double default_ms = 0;  // median of the default build's runs, interleaved with the tuned build's
};
MeasuredBesideDefaults measure_beside_defaults(const graph::Graph& imported, const codegen::Target& target, int threads,
                                               db::Database& db, const std::string& device_key,
                                               const std::string& lock_file,
                                               runtime::ColdInputs timing = runtime::ColdInputs::Weights,
                                               int rounds = 6);

}  // namespace tf::graph

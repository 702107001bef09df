// A model built on this host (with a database's best configs and fastest alternatives, or the
// defaults) and timed as `tunefarm model bench` times it: what `model tune` adds to its kernel
// estimate (the untuned nodes and layout transforms, measured once) and what it checks its
// prediction against at the end.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "db/database.h"
#include "graph/build.h"
#include "graph/graph.h"
#include "graph/latency_breakdown.h"
#include "runtime/measure.h"
#include "runtime/model/executor.h"
#include "runtime/model/model_file.h"
#include "runtime/model/timing.h"
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

// A model built on this host once and timed as often as a job asks: a model job's default build
// is timed before the search and again beside the tuned build at the end.
class HostModel {
 public:
  // Built with `o.db`'s best configs (null: the defaults) and given random inputs.
  HostModel(const graph::Graph& imported, const codegen::Target& target, const DbBuildOptions& o);
  HostModel(const HostModel&) = delete;
  HostModel& operator=(const HostModel&) = delete;
  ~HostModel();

  // Runs for about `seconds` (at least `min_runs` runs) on `threads_` threads; no lock taken.
  runtime::model::ModelTiming run(double seconds, int min_runs);
  // The median and the per-kind breakdown of `runs` of this model.
  MeasuredModel measured(const runtime::model::ModelTiming& runs) const;

 private:
  int threads_;
  graph::Graph planned_;
  std::unique_ptr<runtime::model::Executor> exec_;
};

// Timed for about half a second, holding the host-wide timing lock `lock_file`.
MeasuredModel measure_model_here(HostModel& model, const std::string& lock_file);

// What a model job's in-model checkpoints read (tuner::TuneTasksOptions::time_in_model): the model
// built with `db`'s best configs so far and timed once; per workload of `tasks`, a call's seconds in
// the run and its config's recorded seconds alone.
tuner::InModelTimes time_tasks_in_model(const graph::Graph& imported, const codegen::Target& target,
                                        const DbBuildOptions& build, const std::string& lock_file,
                                        const std::vector<ops::Workload>& tasks);

// The model built with `tuned.db`'s best configs, timed in rounds that alternate with `defaults`
// (the default build, made once for the job). A shared machine's speed drifts by tens of percent
// over the minutes a search takes: the default build timed again beside the tuned one tells that
// drift (default_ms against its time before the search) apart from an error of the estimate.
struct MeasuredBesideDefaults {
  MeasuredModel tuned;
  double default_ms = 0;  // median of the default build's runs, interleaved with the tuned build's
};
MeasuredBesideDefaults measure_beside_defaults(const graph::Graph& imported, const codegen::Target& target,
                                               const DbBuildOptions& tuned, HostModel& defaults,
                                               const std::string& lock_file, int rounds = 6);

}  // namespace tf::graph

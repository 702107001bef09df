#include "graph/model_latency.h"

#include <cstdio>

#include "graph/build.h"
#include "graph/pipeline.h"
#include "runtime/host_lock.h"
#include "runtime/model/executor.h"
#include "runtime/model/timing.h"
#include "runtime/thread_pool.h"
#include "tuner/best_configs.h"

namespace tf::graph {

DbBuild build_with_db(const graph::Graph& imported, const codegen::Target& target, const DbBuildOptions& o) {
  const tuner::BestConfigs best(o.db, target.str(), o.device_key, o.timing);
  graph::PlanOptions plan = graph::plan_options_for(target);
  plan.measured_seconds = [&](const ops::Workload& w) { return best.seconds(w); };
  plan.graph_layouts = o.graph_layouts;
  DbBuild built;
  built.planned = graph::plan_graph(imported, plan);
  graph::BuildOptions options;
  options.target = target;
  options.threads = o.threads;
  options.config_for = [&](const ops::Workload& w) { return best.config(w); };
  built.file = graph::build_model(built.planned, options, &built.report);
  return built;
}

HostModel::HostModel(const graph::Graph& imported, const codegen::Target& target, const DbBuildOptions& o)
    : threads_(o.threads) {
  DbBuild built = build_with_db(imported, target, o);
  planned_ = std::move(built.planned);
  exec_ = std::make_unique<runtime::model::Executor>(std::move(built.file));
  runtime::model::fill_random_inputs(*exec_);
}

HostModel::~HostModel() = default;

runtime::model::ModelTiming HostModel::run(double seconds, int min_runs) {
  runtime::set_num_threads(threads_);
  return runtime::model::time_model(*exec_, 0, seconds, min_runs);
}

MeasuredModel HostModel::measured(const runtime::model::ModelTiming& runs) const {
  return MeasuredModel{runs.median_ms(), graph::latency_breakdown(planned_, exec_->model(), runs)};
}

namespace {

// The host-wide lock is held while this host times a model, so boards sharing it do not time
// kernels at the same moment; a lock that could not be taken is said, and the timing goes on.
void say_if_not_held(const runtime::HostLock& lock) {
  if (!lock.held())
    std::fprintf(stderr, "model tune: timing the model without the host lock: %s\n", lock.error().c_str());
}

void append_runs(runtime::model::ModelTiming* all, const runtime::model::ModelTiming& more) {
  all->totals.insert(all->totals.end(), more.totals.begin(), more.totals.end());
  if (all->per_step.empty()) all->per_step.resize(more.per_step.size());
  for (size_t s = 0; s < more.per_step.size(); ++s)
    all->per_step[s].insert(all->per_step[s].end(), more.per_step[s].begin(), more.per_step[s].end());
}

}  // namespace

MeasuredModel measure_model_here(HostModel& model, const std::string& lock_file) {
  const runtime::HostLock lock(lock_file);
  say_if_not_held(lock);
  return model.measured(model.run(0.5, 10));
}

tuner::InModelTimes time_tasks_in_model(const graph::Graph& imported, const codegen::Target& target,
                                        const DbBuildOptions& build, const std::string& lock_file,
                                        const std::vector<ops::Workload>& tasks) {
  HostModel model(imported, target, build);
  const MeasuredModel m = measure_model_here(model, lock_file);
  const tuner::BestConfigs best(build.db, target.str(), build.device_key, build.timing);
  tuner::InModelTimes t;
  t.other_s = (m.parts.untuned_ms + m.parts.layout_ms) * 1e-3;
  for (const ops::Workload& w : tasks) {
    const auto in_model = m.parts.kernel_s_per_call.find(w.str());
    const std::optional<double> alone = best.seconds(w);
    const bool ran = in_model != m.parts.kernel_s_per_call.end() && alone;
    t.in_model_s.push_back(ran ? in_model->second : 0);
    t.alone_s.push_back(ran ? *alone : 0);
  }
  return t;
}

MeasuredBesideDefaults measure_beside_defaults(const graph::Graph& imported, const codegen::Target& target,
                                               const DbBuildOptions& tuned_build, HostModel& defaults,
                                               const std::string& lock_file, int rounds) {
  HostModel tuned(imported, target, tuned_build);
  const runtime::HostLock lock(lock_file);
  say_if_not_held(lock);
  runtime::model::ModelTiming tuned_runs, default_runs;
  const double seconds_per_round = 0.5 / rounds;
  for (int r = 0; r < rounds; ++r) {
    append_runs(&default_runs, defaults.run(seconds_per_round, 3));
    append_runs(&tuned_runs, tuned.run(seconds_per_round, 3));
  }
  return MeasuredBesideDefaults{tuned.measured(tuned_runs), default_runs.median_ms()};
}

}  // namespace tf::graph

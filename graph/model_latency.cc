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

namespace {

DbBuildOptions records(int threads, db::Database* db, const std::string& device_key, runtime::ColdInputs timing) {
  DbBuildOptions o;
  o.threads = threads;
  o.db = db;
  o.device_key = device_key;
  o.timing = timing;
  return o;
}

}  // namespace

MeasuredModel measure_model_here(const graph::Graph& imported, const codegen::Target& target, int threads,
                                 db::Database* db, const std::string& device_key, const std::string& lock_file,
                                 runtime::ColdInputs timing) {
  DbBuild built = build_with_db(imported, target, records(threads, db, device_key, timing));
  runtime::model::Executor exec(std::move(built.file));
  runtime::set_num_threads(threads);
  runtime::model::fill_random_inputs(exec);
  runtime::HostLock lock(lock_file);
  if (!lock.held())
    std::fprintf(stderr, "model tune: timing the model without the host lock: %s\n", lock.error().c_str());
  const runtime::model::ModelTiming timed = runtime::model::time_model(exec, 0, 0.5);
  return MeasuredModel{timed.median_ms(), graph::latency_breakdown(built.planned, exec.model(), timed)};
}

tuner::InModelTimes time_tasks_in_model(const graph::Graph& imported, const codegen::Target& target, int threads,
                                        db::Database& db, const std::string& device_key, const std::string& lock_file,
                                        runtime::ColdInputs timing, const std::vector<ops::Workload>& tasks) {
  const MeasuredModel m = measure_model_here(imported, target, threads, &db, device_key, lock_file, timing);
  const tuner::BestConfigs best(&db, target.str(), device_key, timing);
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

namespace {

void append_runs(runtime::model::ModelTiming* all, const runtime::model::ModelTiming& more) {
  all->totals.insert(all->totals.end(), more.totals.begin(), more.totals.end());
  if (all->per_step.empty()) all->per_step.resize(more.per_step.size());
  for (size_t s = 0; s < more.per_step.size(); ++s)
    all->per_step[s].insert(all->per_step[s].end(), more.per_step[s].begin(), more.per_step[s].end());
}

}  // namespace

MeasuredBesideDefaults measure_beside_defaults(const graph::Graph& imported, const codegen::Target& target, int threads,
                                               db::Database& db, const std::string& device_key,
                                               const std::string& lock_file, runtime::ColdInputs timing, int rounds) {
  DbBuild built = build_with_db(imported, target, records(threads, &db, device_key, timing));
  runtime::model::Executor tuned(std::move(built.file));
  runtime::model::Executor defaults(
      build_with_db(imported, target, records(threads, nullptr, device_key, runtime::ColdInputs::Weights)).file);
  runtime::set_num_threads(threads);
  runtime::model::fill_random_inputs(tuned);
  runtime::model::fill_random_inputs(defaults);
  runtime::HostLock lock(lock_file);
  if (!lock.held())
    std::fprintf(stderr, "model tune: timing the model without the host lock: %s\n", lock.error().c_str());
  runtime::model::ModelTiming tuned_runs, default_runs;
  const double seconds_per_round = 0.5 / rounds;
  for (int r = 0; r < rounds; ++r) {
    append_runs(&default_runs, runtime::model::time_model(defaults, 0, seconds_per_round, 3));
    append_runs(&tuned_runs, runtime::model::time_model(tuned, 0, seconds_per_round, 3));
  }
  return MeasuredBesideDefaults{
      MeasuredModel{tuned_runs.median_ms(), graph::latency_breakdown(built.planned, tuned.model(), tuned_runs)},
      default_runs.median_ms()};
}

}  // namespace tf::graph

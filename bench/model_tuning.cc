#include "bench/model_tuning.h"

#include <cstdio>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "graph/model_latency.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "tuner/tune_job.h"
#include "tuner/tune_tasks.h"

namespace tf::bench {

std::unique_ptr<runtime::model::Executor> build_from_db(const graph::Graph& imported, const std::string& target,
                                                        int threads, db::Database* db, graph::Graph* planned,
                                                        bool graph_layouts, runtime::ColdInputs timing) {
  return std::make_unique<runtime::model::Executor>(graph::build_with_db(imported, codegen::parse_target(target),
                                                                         threads, db, tuner::local_device_key(threads),
                                                                         planned, timing, graph_layouts));
}

ModelTuneRun tune_model_tasks(const graph::Graph& imported, const ModelTuneSettings& s, db::Database& db) {
  const codegen::Target target = codegen::parse_target(s.target);
  std::vector<std::unique_ptr<compiler::Task>> compiled;
  std::vector<tuner::TaskToTune> to_tune;
  // As `tunefarm model tune` does: the default build timed once gives the other nodes' time and each
  // kernel's time inside the model.
  const graph::MeasuredModel defaults = graph::measure_model_here(imported, target, s.threads, nullptr,
                                                                  tuner::local_device_key(s.threads), s.timing_lock);
  double other_ms = defaults.parts.untuned_ms + defaults.parts.layout_ms;
  const graph::Graph planned = graph::plan_graph(imported, graph::plan_options_for(target));
  std::vector<ops::Workload> workloads;
  for (const auto& t : graph::tunable_tasks(planned, s.graph_layouts)) {
    workloads.push_back(t.workload);
    compiled.push_back(std::make_unique<compiler::Task>(t.workload, target));
    to_tune.push_back({compiled.back().get(), static_cast<double>(t.count), t.group});
    const auto it = defaults.parts.kernel_s_per_call.find(t.workload.str());
    if (it != defaults.parts.kernel_s_per_call.end()) to_tune.back().in_model_default_s = it->second;
  }
  tuner::TuneTasksOptions o;
  o.trials = s.trials;
  o.time_limit_s = s.time_limit_s;
  o.scheduler = s.scheduler;
  o.each.tuner = "xgb";
  o.each.threads = s.threads;
  o.each.device_key = tuner::local_device_key(s.threads);
  o.each.measure.min_repeat_ms = s.min_repeat_ms;
  o.each.measure.cold_inputs = s.cold_inputs;
  o.each.job_id =
      db.create_job(Json{{"kind", "model"}, {"bench", "models_bench"}, {"trials", s.trials}}, "models_bench");

  o.time_in_model = [&] {
    return graph::time_tasks_in_model(imported, target, s.threads, db, tuner::local_device_key(s.threads),
                                      s.timing_lock, s.cold_inputs, workloads);
  };

  ModelTuneRun run;
  int64_t next_checkpoint = s.checkpoint;
  const int64_t every = std::max<int64_t>(1, s.trials / 10);
  int64_t next_line = every;
  auto progress = [&](const tuner::TasksProgress& p) {
    if (p.other_nodes_s >= 0) other_ms = p.other_nodes_s * 1e3;
    ModelTuneRun::Point point{p.trials, p.estimated_s * 1e3 + other_ms, 0};
    if (s.checkpoint > 0 && s.measure && p.trials >= next_checkpoint) {
      auto exec = build_from_db(imported, s.target, s.threads, &db, nullptr, true, s.cold_inputs);
      point.measured_ms = s.measure(*exec);
      while (next_checkpoint <= p.trials) next_checkpoint += s.checkpoint;
    }
    run.curve.push_back(point);
    if (p.trials >= next_line) {
      std::fprintf(stderr, "    %s: %lld/%lld trials, estimated %.2f ms%s  %.0f s\n",
                   tuner::scheduler_policy_name(s.scheduler), static_cast<long long>(p.trials),
                   static_cast<long long>(p.budget), point.estimated_ms,
                   point.measured_ms > 0 ? (", measured " + std::to_string(point.measured_ms) + " ms").c_str() : "",
                   p.elapsed_s);
      while (next_line <= p.trials) next_line += every;
    }
  };
  const tuner::TuneTasksResult r = tuner::tune_tasks(to_tune, o, &db, progress);
  db.update_job(*o.each.job_id, r.stopped ? "cancelled" : "done",
                Json{{"trials", r.trials}, {"estimated_ms", r.estimated_s * 1e3 + other_ms}});
  run.trials = r.trials;
  run.seconds = r.seconds;
  run.estimated_ms = r.estimated_s * 1e3 + other_ms;
  const graph::MeasuredBesideDefaults measured = graph::measure_beside_defaults(
      imported, target, s.threads, db, tuner::local_device_key(s.threads), s.timing_lock, s.cold_inputs);
  run.measured_ms = measured.tuned.median_ms;
  run.default_before_ms = defaults.median_ms;
  run.default_after_ms = measured.default_ms;
  return run;
}

}  // namespace tf::bench

#include "bench/model_tuning.h"

#include <algorithm>
#include <cstdio>

#include "compiler/codegen/target.h"
#include "graph/model_latency.h"
#include "tuner/tune_job.h"

namespace tf::bench {

std::unique_ptr<runtime::model::Executor> build_from_db(const graph::Graph& imported, const std::string& target,
                                                        int threads, db::Database* db, graph::Graph* planned,
                                                        bool graph_layouts, runtime::ColdInputs timing) {
  graph::DbBuildOptions records;
  records.threads = threads;
  records.db = db;
  records.device_key = tuner::local_device_key(threads);
  records.timing = timing;
  records.graph_layouts = graph_layouts;
  graph::DbBuild built = graph::build_with_db(imported, codegen::parse_target(target), records);
  if (planned) *planned = std::move(built.planned);
  return std::make_unique<runtime::model::Executor>(std::move(built.file));
}

namespace {

graph::ModelTuneOptions model_tune_options(const std::string& name, const ModelTuneSettings& s) {
  graph::ModelTuneOptions o;
  o.model_path = name;
  o.measure.trials = s.trials;
  o.measure.min_ms = s.min_repeat_ms;
  o.scheduler = tuner::scheduler_policy_name(s.scheduler);
  o.time_limit_s = s.time_limit_s;
  o.layouts = s.graph_layouts ? "graph" : "per-conv";
  o.threads = s.threads;
  o.target = s.target;
  o.timing_lock = s.timing_lock;
  return o;
}

}  // namespace

ModelTuneRun tune_model_tasks(const graph::Graph& imported, const std::string& name, const ModelTuneSettings& s,
                              db::Database& db) {
  const graph::ModelTuneOptions o = model_tune_options(name, s);
  ModelTuneRun run;
  int64_t next_checkpoint = s.checkpoint;
  const int64_t every = std::max<int64_t>(1, s.trials / 10);
  int64_t next_line = every;
  graph::ModelTuneHooks hooks;
  hooks.progress = [&](const tuner::TasksProgress& p, double other_nodes_ms) {
    ModelTuneRun::Point point{p.trials, p.estimated_s * 1e3 + other_nodes_ms, 0};
    if (s.checkpoint > 0 && s.measure && p.trials >= next_checkpoint) {
      auto exec = build_from_db(imported, s.target, s.threads, &db);
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
  run.result = graph::tune_model_locally(o, graph::model_tasks(imported, o), db, hooks);
  return run;
}

}  // namespace tf::bench

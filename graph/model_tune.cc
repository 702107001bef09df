#include "graph/model_tune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "compiler/codegen/target.h"
#include "graph/bound_inputs.h"
#include "graph/model_latency.h"
#include "graph/pipeline.h"
#include "tuner/best_configs.h"

namespace tf::graph {
namespace {

double ms(double seconds) { return std::isfinite(seconds) ? seconds * 1e3 : 0; }
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c, d);
  return buf;
}

// The phases of a local model job in the order they happen; "scheduling" is what the tasks' own
// accounts leave of the search's wall time (the scheduler, progress reports, job-state writes).
std::vector<std::pair<std::string, double>> time_spent(double default_build_s, const tuner::TuneTasksResult& done,
                                                       double final_build_s) {
  const tuner::TimeSpent& t = done.spent;
  return {{"default model timed", default_build_s},
          {"task starts", t.start},
          {"search", t.search},
          {"waiting for builds", t.build_wait},
          {"timed runs", t.timed},
          {"measuring overhead", t.measuring},
          {"db writes", t.record},
          {"confirming", t.confirm},
          {"model timed at checkpoints", done.in_model_timing_s},
          {"scheduling", std::max(0.0, done.seconds - t.total() - done.in_model_timing_s)},
          {"tuned model timed", final_build_s}};
}

Json model_job_spec(const ModelTuneOptions& o, const ModelTasks& m, const std::string& target) {
  Json list = Json::array();
  for (const auto& t : m.tasks) {
    Json task = {{"op", t.workload.op}, {"shape", t.workload.shape}, {"calls", t.count}};
    if (t.group >= 0) task["group"] = t.group;
    list.push_back(std::move(task));
  }
  return {{"kind", "model"},
          {"model", o.model_path},
          {"input_shapes", m.input_shapes},
          {"tasks", list},
          {"trials", o.measure.trials},
          {"scheduler", o.scheduler},
          {"tuner", o.measure.tuner},
          {"threads", o.threads},
          {"target", target},
          {"device_key", tuner::local_device_key(o.threads)},
          {"seed", o.measure.seed},
          {"cold_inputs", o.measure.cold_inputs}};
}

// The newest job of this db that tuned the same tasks with the same settings and did not finish:
// its measurements count, and only the rest of the budget is spent. The model's path may differ.
std::optional<int64_t> unfinished_job(db::Database& db, const Json& spec) {
  Json want = spec;
  want.erase("model");
  const auto jobs = db.jobs();
  for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
    if (it->state != "failed" || !it->spec.is_object() || it->spec.value("kind", "") != "model") continue;
    Json have = it->spec;
    have.erase("model");
    if (have == want) return it->id;
  }
  return std::nullopt;
}

Json progress_json(const tuner::TasksProgress& p, const std::vector<Task>& tasks) {
  Json per_task = Json::array();
  for (size_t i = 0; i < p.tasks.size(); ++i) {
    per_task.push_back(
        {{"workload", tasks[i].workload.str()}, {"trials", p.tasks[i].trials}, {"best_ms", ms(p.tasks[i].best_s())}});
  }
  return {{"trials", p.trials}, {"budget", p.budget}, {"estimated_ms", ms(p.estimated_s)}, {"tasks", per_task}};
}

tuner::TuneTasksOptions tasks_options(const ModelTuneOptions& a) {
  tuner::TuneTasksOptions o;
  o.trials = a.measure.trials;
  o.time_limit_s = a.time_limit_s;
  o.scheduler = tuner::parse_scheduler_policy(a.scheduler);
  o.each.tuner = a.measure.tuner;
  o.each.threads = a.threads;
  o.each.device_key = tuner::local_device_key(a.threads);
  o.each.seed = a.measure.seed;
  o.each.measure.min_repeat_ms = a.measure.min_ms;
  o.each.measure.repeat = a.measure.repeat;
  o.each.measure.timeout_s = a.measure.timeout_s;
  o.each.measure.timing_lock = a.timing_lock;
  if (!runtime::parse_cold_inputs(a.measure.cold_inputs, &o.each.measure.cold_inputs))
    throw ModelTuneError("cold inputs: '" + a.measure.cold_inputs + "' is not one of off, weights, all");
  if (std::string bad = runtime::measure_options_error(o.each.measure); !bad.empty())
    throw ModelTuneError("measure options: " + bad);
  return o;
}

// The search's outcome per task, and the job's state from it.
void fill_from_search(const ModelTasks& m, const tuner::TuneTasksResult& done, ModelTuneResult& r) {
  if (done.other_nodes_s >= 0) r.other_nodes_ms = ms(done.other_nodes_s);
  r.trials = done.trials;
  r.out_of_time = done.out_of_time;
  r.in_model_timings = done.in_model_timings;
  r.estimated_ms = ms(done.estimated_s) + r.other_nodes_ms;
  r.seconds = done.seconds;
  for (const auto& p : done.curve) r.curve.emplace_back(p.trials, ms(p.estimated_s) + r.other_nodes_ms);
  bool any_ok = false;
  for (size_t i = 0; i < m.tasks.size(); ++i) {
    const tuner::TuneResult& t = done.tasks[i];
    ModelTuneResult::TaskRow row = task_row(m.tasks[i], t.trials);
    if (t.best) {
      row.best_ms = ms(t.best->mean_s());
      row.best_gflops = t.best_gflops;
      row.best_config = t.best->config;
      row.in_model_scale = done.in_model_scale[i];
      any_ok = true;
    }
    r.tasks.push_back(row);
  }
  r.state = done.stopped ? "cancelled" : any_ok ? "done" : "failed";
}

}  // namespace

ModelTuneResult::TaskRow task_row(const Task& t, int64_t trials) {
  ModelTuneResult::TaskRow row;
  row.op = t.workload.op;
  row.shape_text = t.shape_text;
  row.workload = t.workload.str();
  row.calls = t.count;
  row.trials = trials;
  row.group = t.group + 1;
  return row;
}

ModelTasks model_tasks(const ModelTuneOptions& o) { return model_tasks(import_onnx_file(o.model_path, o.import), o); }

ModelTasks model_tasks(Graph imported, const ModelTuneOptions& o) {
  const Graph planned = plan_graph(imported, plan_options_for(codegen::parse_target(o.target)));
  ModelTasks m{std::move(imported), tunable_tasks(planned, o.layouts == "graph"), bound_inputs_json(planned),
               bound_inputs_text(planned)};
  if (o.for_boards) {
    m.tasks.erase(std::remove_if(m.tasks.begin(), m.tasks.end(), [](const Task& t) { return t.count == 0; }),
                  m.tasks.end());
  }
  if (m.tasks.empty())
    throw ModelTuneError(o.model_path + ": the model has no tunable kernels (no convolution or matrix product)");
  return m;
}

ModelTuneResult tune_model_locally(const ModelTuneOptions& a, const ModelTasks& m, db::Database& database,
                                   const ModelTuneHooks& hooks) {
  if (a.scheduler != "gradient" && a.scheduler != "even")
    throw ModelTuneError("scheduler: '" + a.scheduler + "' is not gradient or even");
  if (a.layouts != "graph" && a.layouts != "per-conv")
    throw ModelTuneError("layouts: '" + a.layouts + "' is not graph or per-conv");
  const std::vector<Task>& tasks = m.tasks;
  const codegen::Target target = codegen::parse_target(a.target);
  tuner::TuneTasksOptions o = tasks_options(a);
  o.each.stop = hooks.stop;
  std::vector<std::unique_ptr<compiler::Task>> compiled;
  std::vector<tuner::TaskToTune> to_tune;
  for (const auto& t : tasks) {
    compiled.push_back(std::make_unique<compiler::Task>(t.workload, target));
    to_tune.push_back({compiled.back().get(), static_cast<double>(t.count), t.group});
  }
  auto note = [&](const std::string& line, bool detail) {
    if (hooks.note) hooks.note(line, detail);
  };

  const Json spec = model_job_spec(a, m, target.str());
  ModelTuneResult r;
  if (auto old = unfinished_job(database, spec); old && database.adopt_job(*old)) {
    r.job_id = *old;
    o.each.resume = true;
  } else {
    r.job_id = database.create_job(spec, "local");
  }
  o.each.job_id = r.job_id;

  const std::string device_key = tuner::local_device_key(a.threads);
  // What no trial changes: the nodes outside the tuned kernels, timed once in a default build
  // (kept to be timed again beside the tuned build at the end).
  const auto default_start = std::chrono::steady_clock::now();
  DbBuildOptions default_build;
  default_build.threads = a.threads;
  default_build.device_key = device_key;
  HostModel default_model(m.imported, target, default_build);
  const MeasuredModel defaults = measure_model_here(default_model, o.each.measure.timing_lock);
  r.other_nodes_ms = defaults.parts.untuned_ms + defaults.parts.layout_ms;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto it = defaults.parts.kernel_s_per_call.find(tasks[i].workload.str());
    if (it != defaults.parts.kernel_s_per_call.end()) to_tune[i].in_model_default_s = it->second;
  }
  const double default_s = seconds_since(default_start);
  note(format("model tune: default build %.3g ms per run: kernels %.3g, other nodes %.3g, layout transforms %.3g",
              defaults.median_ms, defaults.parts.tuned_ms, defaults.parts.untuned_ms, defaults.parts.layout_ms),
       true);
  note("model tune: job " + std::to_string(r.job_id) + ", " + std::to_string(tasks.size()) + " tasks, " +
           std::to_string(a.measure.trials) + " trials, " + a.scheduler + " scheduler, on this host at " +
           std::to_string(a.threads) + " thread" + (a.threads == 1 ? "" : "s") + ", " +
           (a.measure.cold_inputs == "off" ? "no" : a.measure.cold_inputs) + " inputs timed cold; recorded in " +
           db::shown_location(database.location()),
       false);
  std::vector<ops::Workload> workloads;
  workloads.reserve(tasks.size());
  for (const auto& t : tasks) workloads.push_back(t.workload);
  DbBuildOptions tuned_build = default_build;
  tuned_build.db = &database;
  tuned_build.timing = o.each.measure.cold_inputs;
  o.time_in_model = [&] {
    return time_tasks_in_model(m.imported, target, tuned_build, o.each.measure.timing_lock, workloads);
  };
  auto progress = [&](const tuner::TasksProgress& p) {
    if (p.other_nodes_s >= 0) r.other_nodes_ms = ms(p.other_nodes_s);
    database.update_job(r.job_id, "running", progress_json(p, tasks));
    if (hooks.progress) hooks.progress(p, r.other_nodes_ms);
  };
  const tuner::TuneTasksResult done = tuner::tune_tasks(to_tune, o, &database, progress);

  r.model = a.model_path;
  r.input_shapes = m.input_shapes;
  r.inputs_text = m.inputs_text;
  r.where = "this host (" + device_key + ")";
  r.target = target.str();
  r.scheduler = a.scheduler;
  r.budget = a.measure.trials;
  fill_from_search(m, done, r);
  const auto final_start = std::chrono::steady_clock::now();
  if (r.state == "done") {
    const MeasuredBesideDefaults measured =
        measure_beside_defaults(m.imported, target, tuned_build, default_model, o.each.measure.timing_lock);
    r.measured_ms = measured.tuned.median_ms;
    for (ModelTuneResult::TaskRow& row : r.tasks) {
      const auto it = measured.tuned.parts.kernel_s_per_call.find(row.workload);
      if (it != measured.tuned.parts.kernel_s_per_call.end()) row.measured_in_model_ms = ms(it->second);
    }
    r.default_before_ms = defaults.median_ms;
    r.default_after_ms = measured.default_ms;
  }
  r.time_spent = time_spent(default_s, done, seconds_since(final_start));
  Json final_progress = {{"trials", r.trials}, {"budget", r.budget}, {"estimated_ms", r.estimated_ms}};
  database.update_job(r.job_id, r.state, final_progress);
  return r;
}

Json model_tune_result_json(const ModelTuneResult& r) {
  Json list = Json::array();
  for (const auto& t : r.tasks) {
    list.push_back({{"op", t.op},
                    {"shape", t.shape_text},
                    {"workload", t.workload},
                    {"calls", t.calls},
                    {"group", t.group},
                    {"trials", t.trials},
                    {"best_ms", t.best_ms},
                    {"best_gflops", t.best_gflops},
                    {"in_model_scale", t.in_model_scale},
                    {"measured_in_model_ms", t.measured_in_model_ms},
                    {"best_config", t.best_config}});
  }
  Json curve = Json::array();
  for (const auto& [trials, est_ms] : r.curve) curve.push_back({trials, est_ms});
  Json out = {{"model", r.model},
              {"input_shapes", r.input_shapes},
              {"job_id", r.job_id},
              {"where", r.where},
              {"target", r.target},
              {"scheduler", r.scheduler},
              {"trials", r.trials},
              {"budget", r.budget},
              {"estimated_ms", r.estimated_ms},
              {"other_nodes_ms", r.other_nodes_ms},
              {"in_model_timings", r.in_model_timings},
              {"measured_ms", r.measured_ms},
              {"default_before_ms", r.default_before_ms},
              {"default_after_ms", r.default_after_ms},
              {"machine_drift", r.machine_drift()},
              {"seconds", r.seconds},
              {"state", r.state},
              {"time_limit_reached", r.out_of_time},
              {"tasks", list},
              {"curve", curve}};
  if (!r.time_spent.empty()) {
    Json spent = Json::object();
    for (const auto& [phase, seconds] : r.time_spent) spent[phase] = seconds;
    out["time_spent_s"] = spent;
  }
  return out;
}

}  // namespace tf::graph

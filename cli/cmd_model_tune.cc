// `tunefarm model tune M.onnx --trials N`: a model's distinct kernels tuned as one job with one budget
// (tuner/tune_tasks.h), on this host or on a fleet (model_tune_fleet.cc). The task scheduler puts
// each batch where it cuts the model's estimated latency most; the progress shows that estimate and
// where the trials went. A job killed midway is resumed by running the same command again.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "cli/commands.h"
#include "cli/model_tune.h"
#include "cli/open_db.h"
#include "cli/workload_args.h"
#include "db/database.h"
#include "graph/model_latency.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/measure.h"
#include "tuner/tune_tasks.h"

namespace tf::cli {
namespace {

double ms(double seconds) { return std::isfinite(seconds) ? seconds * 1e3 : 0; }
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
  return buf;
}

std::string format_ms(double ms_value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms_value);
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

Json model_job_spec(const ModelTuneArgs& a, const ModelTasks& m, const std::string& target) {
  Json list = Json::array();
  for (const auto& t : m.tasks) {
    Json task = {{"op", t.workload.op}, {"shape", t.workload.shape}, {"calls", t.count}};
    if (t.group >= 0) task["group"] = t.group;
    list.push_back(std::move(task));
  }
  return {{"kind", "model"},
          {"model", a.model_path},
          {"input_shapes", m.input_shapes},
          {"tasks", list},
          {"trials", a.measure.trials},
          {"scheduler", a.scheduler},
          {"tuner", a.measure.tuner},
          {"threads", a.threads},
          {"target", target},
          {"device_key", device_key_of(a.threads)},
          {"seed", a.measure.seed},
          {"cold_inputs", a.measure.cold_inputs}};
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

Json progress_json(const tuner::TasksProgress& p, const std::vector<graph::Task>& tasks) {
  Json per_task = Json::array();
  for (size_t i = 0; i < p.tasks.size(); ++i) {
    per_task.push_back(
        {{"workload", tasks[i].workload.str()}, {"trials", p.tasks[i].trials}, {"best_ms", ms(p.tasks[i].best_s())}});
  }
  return {{"trials", p.trials}, {"budget", p.budget}, {"estimated_ms", ms(p.estimated_s)}, {"tasks", per_task}};
}

void print_progress(const tuner::TasksProgress& p, const std::vector<graph::Task>& tasks, double other_ms, bool tty) {
  const graph::Task& t = tasks[p.task];
  const tuner::TaskProgress& tp = p.tasks[p.task];
  std::string untuned = p.missing ? " (" + std::to_string(p.missing) + " tasks not yet measured)" : "";
  if (p.replayed) {
    std::fprintf(stderr, "model tune: resumed with %lld of %lld trials measured before; estimated %.3g ms%s\n",
                 static_cast<long long>(p.trials), static_cast<long long>(p.budget), ms(p.estimated_s) + other_ms,
                 untuned.c_str());
    return;
  }
  std::fprintf(stderr, "%s[%5lld/%lld] estimated %.3g ms%s  task %zu %s x%lld: %lld trials, best %.3f ms  %5.0f s%s",
               tty ? "\r\033[K" : "", static_cast<long long>(p.trials), static_cast<long long>(p.budget),
               ms(p.estimated_s) + other_ms, untuned.c_str(), p.task + 1, t.workload.op.c_str(),
               static_cast<long long>(t.count), static_cast<long long>(tp.trials), ms(tp.best_s()), p.elapsed_s,
               tty ? "" : "\n");
  std::fflush(stderr);
}

}  // namespace

ModelTuneResult::TaskRow task_row(const graph::Task& t, int64_t trials) {
  ModelTuneResult::TaskRow row;
  row.op = t.workload.op;
  row.shape_text = t.shape_text;
  row.workload = t.workload.str();
  row.calls = t.count;
  row.trials = trials;
  row.group = t.group + 1;
  return row;
}

ModelTasks model_tasks(const ModelTuneArgs& a) {
  graph::Graph imported = graph::import_onnx_file(a.model_path, import_options(a.shapes));
  const graph::Graph planned = graph::plan_graph(imported, graph::plan_options_for(codegen::parse_target(a.target)));
  ModelTasks m{std::move(imported), graph::tunable_tasks(planned, a.layouts == "graph"), bound_inputs_json(planned),
               bound_inputs_text(planned)};
  // A board times kernels a job calls: the conversions (count 0) are left to their estimate there.
  if (!a.key.empty()) {
    m.tasks.erase(std::remove_if(m.tasks.begin(), m.tasks.end(), [](const graph::Task& t) { return t.count == 0; }),
                  m.tasks.end());
  }
  if (m.tasks.empty())
    throw UsageError(a.model_path + ": the model has no tunable kernels (no convolution or matrix product)");
  return m;
}

void print_model_tune_result(const ModelTuneResult& r, bool as_json) {
  if (as_json) {
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
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  std::printf("%s: job %lld %s, %lld of %lld trials (%s scheduler) on %s in %.0f s%s\n", r.model.c_str(),
              static_cast<long long>(r.job_id), r.state.c_str(), static_cast<long long>(r.trials),
              static_cast<long long>(r.budget), r.scheduler.c_str(), r.where.c_str(), r.seconds,
              r.out_of_time ? " (time limit reached)" : "");
  std::printf("inputs %s\n", r.inputs_text.c_str());
  if (!r.time_spent.empty()) {
    std::string line;
    for (const auto& [phase, seconds] : r.time_spent)
      line += (line.empty() ? "" : ", ") + phase + " " + format_seconds(seconds);
    std::printf("time: %s\n", line.c_str());
  }
  if (r.measured_ms > 0) {
    std::printf(
        "latency: estimated %.3g ms per run (tuned kernels %.3g + other nodes %.3g; the model timed in %d checkpoint%s "
        "of the search), measured %.3g ms (%+.1f%%)\n",
        r.estimated_ms, r.estimated_ms - r.other_nodes_ms, r.other_nodes_ms, r.in_model_timings,
        r.in_model_timings == 1 ? "" : "s", r.measured_ms, 100 * (r.estimated_ms - r.measured_ms) / r.measured_ms);
    if (r.default_after_ms > 0) {
      const double drift = r.machine_drift();
      std::printf(
          "machine drift: the default build ran %.3g ms before the search and %.3g ms beside the tuned one (x%.3f); "
          "estimate x drift %.3g ms (%+.1f%%)\n",
          r.default_before_ms, r.default_after_ms, drift, r.estimated_ms * drift,
          100 * (r.estimated_ms * drift - r.measured_ms) / r.measured_ms);
    }
  } else {
    std::printf("estimated latency of the tuned kernels: %.3g ms per run\n", r.estimated_ms);
  }
  // Per call: the best time alone, times the in-model scale (the prediction), beside the time the
  // call took in the tuned build timed at the end ("-" for alternatives the build did not pick).
  std::printf("  %-3s %-28s %-58s %5s %6s %9s %8s %9s %9s %7s\n", "#", "op", "shape", "calls", "trials", "best ms",
              "in model", "predicted", "timed", "share");
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    const auto& t = r.tasks[i];
    const double predicted_ms = t.best_ms * t.in_model_scale;
    const double share = r.estimated_ms > 0 ? 100 * predicted_ms * static_cast<double>(t.calls) / r.estimated_ms : 0;
    const std::string timed = t.measured_in_model_ms > 0 ? format_ms(t.measured_in_model_ms) : "-";
    std::printf("  %-3zu %-28s %-58s %5lld %6lld %9.3f %7.2fx %9.3f %9s %6.1f%%\n", i + 1, t.op.c_str(),
                t.shape_text.c_str(), static_cast<long long>(t.calls), static_cast<long long>(t.trials), t.best_ms,
                t.in_model_scale, predicted_ms, timed.c_str(), share);
  }
}

ModelTuneResult tune_model_locally(const ModelTuneArgs& a, const ModelTasks& m) {
  const std::vector<graph::Task>& tasks = m.tasks;
  const codegen::Target target = codegen::parse_target(a.target);
  std::vector<std::unique_ptr<compiler::Task>> compiled;
  std::vector<tuner::TaskToTune> to_tune;
  for (const auto& t : tasks) {
    compiled.push_back(std::make_unique<compiler::Task>(t.workload, target));
    to_tune.push_back({compiled.back().get(), static_cast<double>(t.count), t.group});
  }
  tuner::TuneTasksOptions o;
  o.trials = a.measure.trials;
  o.time_limit_s = a.time_limit_s;
  o.scheduler = tuner::parse_scheduler_policy(a.scheduler);
  o.each.tuner = a.measure.tuner;
  o.each.threads = a.threads;
  o.each.device_key = device_key_of(a.threads);
  o.each.seed = a.measure.seed;
  o.each.measure.min_repeat_ms = a.measure.min_ms;
  o.each.measure.repeat = a.measure.repeat;
  o.each.measure.timeout_s = a.measure.timeout_s;
  runtime::parse_cold_inputs(a.measure.cold_inputs, &o.each.measure.cold_inputs);
  if (std::string bad = runtime::measure_options_error(o.each.measure); !bad.empty())
    throw UsageError("measure options: " + bad);

  auto db_handle = open_or_create_db(a.db_path);
  db::Database& database = *db_handle;
  const Json spec = model_job_spec(a, m, target.str());
  ModelTuneResult r;
  if (auto old = unfinished_job(database, spec); old && database.adopt_job(*old)) {
    r.job_id = *old;
    o.each.resume = true;
  } else {
    r.job_id = database.create_job(spec, "local");
  }
  o.each.job_id = r.job_id;

  const bool tty = ::isatty(STDERR_FILENO) != 0;
  const std::string device_key = device_key_of(a.threads);
  // What no trial changes: the nodes outside the tuned kernels, timed once in a default build.
  const auto default_start = std::chrono::steady_clock::now();
  const graph::MeasuredModel defaults =
      graph::measure_model_here(m.imported, target, a.threads, nullptr, device_key, o.each.measure.timing_lock);
  r.other_nodes_ms = defaults.parts.untuned_ms + defaults.parts.layout_ms;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto it = defaults.parts.kernel_s_per_call.find(tasks[i].workload.str());
    if (it != defaults.parts.kernel_s_per_call.end()) to_tune[i].in_model_default_s = it->second;
  }
  const double default_s = seconds_since(default_start);
  if (!a.quiet) {
    std::fprintf(stderr,
                 "model tune: default build %.3g ms per run: kernels %.3g, other nodes %.3g, layout transforms %.3g\n",
                 defaults.median_ms, defaults.parts.tuned_ms, defaults.parts.untuned_ms, defaults.parts.layout_ms);
  }
  std::fprintf(
      stderr,
      "model tune: job %lld, %zu tasks, %lld trials, %s scheduler, on this host at %d thread%s, %s inputs timed cold; recorded in %s\n",
      static_cast<long long>(r.job_id), tasks.size(), static_cast<long long>(a.measure.trials), a.scheduler.c_str(),
      a.threads, a.threads == 1 ? "" : "s", a.measure.cold_inputs == "off" ? "no" : a.measure.cold_inputs.c_str(),
      db::shown_location(a.db_path).c_str());
  std::vector<ops::Workload> workloads;
  workloads.reserve(tasks.size());
  for (const auto& t : tasks) workloads.push_back(t.workload);
  o.time_in_model = [&] {
    return graph::time_tasks_in_model(m.imported, target, a.threads, database, device_key, o.each.measure.timing_lock,
                                      o.each.measure.cold_inputs, workloads);
  };
  auto progress = [&](const tuner::TasksProgress& p) {
    if (p.other_nodes_s >= 0) r.other_nodes_ms = ms(p.other_nodes_s);
    if (!a.quiet) print_progress(p, tasks, r.other_nodes_ms, tty);
    database.update_job(r.job_id, "running", progress_json(p, tasks));
  };
  const tuner::TuneTasksResult done = tuner::tune_tasks(to_tune, o, &database, progress);
  if (tty && !a.quiet) std::fprintf(stderr, "\n");

  r.model = a.model_path;
  r.input_shapes = m.input_shapes;
  r.inputs_text = m.inputs_text;
  r.where = "this host (" + device_key_of(a.threads) + ")";
  r.target = target.str();
  r.scheduler = a.scheduler;
  r.trials = done.trials;
  r.budget = a.measure.trials;
  r.out_of_time = done.out_of_time;
  if (done.other_nodes_s >= 0) r.other_nodes_ms = ms(done.other_nodes_s);
  r.in_model_timings = done.in_model_timings;
  r.estimated_ms = ms(done.estimated_s) + r.other_nodes_ms;
  r.seconds = done.seconds;
  for (const auto& p : done.curve) r.curve.emplace_back(p.trials, ms(p.estimated_s) + r.other_nodes_ms);
  bool any_ok = false;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const tuner::TuneResult& t = done.tasks[i];
    ModelTuneResult::TaskRow row = task_row(tasks[i], t.trials);
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
  const auto final_start = std::chrono::steady_clock::now();
  if (r.state == "done") {
    const graph::MeasuredBesideDefaults measured = graph::measure_beside_defaults(
        m.imported, target, a.threads, database, device_key, o.each.measure.timing_lock, o.each.measure.cold_inputs);
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

namespace {

int model_tune_command(const ModelTuneArgs& a) {
  if (a.key.empty() && a.tracker.address_option && a.tracker.address_option->count()) {
    throw UsageError("--tracker needs --key: which of its boards should measure (see tunefarm devices)");
  }
  const ModelTasks m = model_tasks(a);
  ModelTuneResult r;
  if (a.key.empty()) {
    r = tune_model_locally(a, m);
  } else if (int code = tune_model_on_fleet(a, m, &r); code != 0) {
    return code;
  }
  print_model_tune_result(r, a.as_json);
  if (!a.as_json && r.state == "done") {
    // The build must bind the inputs as the tuning did, or its kernels are other workloads.
    const std::string shapes = shape_flags(a.shapes);
    if (a.key.empty()) {
      std::printf("next: tunefarm model build %s%s --db %s --threads %d -o MODEL.tfm\n", a.model_path.c_str(),
                  shapes.c_str(), db::shown_location(a.db_path).c_str(), a.threads);
    } else {
      std::printf("next: tunefarm model build %s%s --db TRACKER_DB --key %s --target '%s' -o MODEL.tfm\n",
                  a.model_path.c_str(), shapes.c_str(), a.key.c_str(),
                  r.target.empty() ? "<the boards' target: tunefarm devices>" : r.target.c_str());
    }
  }
  return r.state == "done" ? 0 : 1;
}

}  // namespace

void add_model_tune(CLI::App& model_cmd, Commands& commands) {
  auto a = std::make_shared<ModelTuneArgs>();
  CLI::App* cmd =
      model_cmd.add_subcommand("tune", "tune every distinct kernel of an ONNX model as one job with one trial budget");
  cmd->footer(
      "--trials is the budget of the whole model. The gradient scheduler gives each batch of trials to\n"
      "the kernel whose tuning is expected to cut the model's latency most (calls x time, after a round\n"
      "that tries every kernel once); --scheduler even splits the budget evenly. --time-limit ends the\n"
      "search after that many seconds, the job done with the best found so far. On this host by default\n"
      "(--threads, --db); with --key the job runs on the tracker's boards of that key and shows in\n"
      "`tunefarm status` (cancel it there). Run the same command again after a kill to resume an\n"
      "unfinished local job. Then: tunefarm model build M.onnx --db F --threads T -o M.tfm, with the same\n"
      "--input-shape and --batch: the input shapes are part of the job, and a model tuned at one shape is\n"
      "another job (and other kernels) than at another.");
  cmd->add_option("model", a->model_path, "the .onnx file")->required()->check(CLI::ExistingFile)->type_name("M.onnx");
  add_measure_options(*cmd, a->measure, kTuning | kCold);
  cmd->get_option("--trials")->description("candidates to measure across all the model's kernels");
  cmd->add_option(
         "--time-limit", a->time_limit_s,
         "seconds of tuning after which no batch starts (the best configs are still confirmed and the model timed); "
         "0: none")
      ->type_name("S")
      ->check(CLI::Range(0.0, 7.0 * 24 * 3600));
  cmd->add_option("--scheduler", a->scheduler, "where trials go: gradient or even")
      ->check(CLI::IsMember({"gradient", "even"}));
  cmd->add_option(
         "--layouts", a->layouts,
         "graph: tune each conv's channel blocks (8, 16, 32) as alternatives and measure the conversions, so the build "
         "chooses the blocks for the whole graph; per-conv: blocks of 16, each conv alone")
      ->check(CLI::IsMember({"graph", "per-conv"}));
  add_input_shape_options(*cmd, a->shapes);
  add_threads_option(*cmd, a->threads, "threads of the kernels under measurement (this host; a board uses its own)");
  cmd->add_option("--target", a->target,
                  "native (this host) or \"llvm -mtriple=... -mcpu=... -mattr=...\" (a fleet builds for its boards)")
      ->type_name("TARGET");
  cmd->add_option(
         "--db", a->db_path,
         "tuning database: a SQLite file or postgresql://USER@HOST:PORT/NAME (a file is created when missing; this host)")
      ->type_name("PATH|URL");
  add_tracker_options(*cmd, a->tracker);
  cmd->add_option("--key", a->key, "tune on the tracker's boards of this key instead of this host")->type_name("KEY");
  cmd->add_option("--priority", a->priority, "the job's share of the key's boards against other jobs (fleet)")
      ->check(CLI::Range(1, 100));
  cmd->add_flag("--json", a->as_json, "print the result as JSON (progress stays on stderr)");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress lines");
  commands.on(cmd, [a] { return model_tune_command(*a); });
}

}  // namespace tf::cli

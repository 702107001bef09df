// `tunefarm model tune M.onnx --trials N`: a model's distinct kernels tuned as one job with one budget,
// on this host (graph/model_tune.h) or on a fleet (model_tune_fleet.cc). The progress shows the
// model's estimated latency and where the trials went. A job killed midway is resumed by running the
// same command again.
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "cli/commands.h"
#include "cli/model_tune.h"
#include "cli/open_db.h"
#include "cli/workload_args.h"
#include "db/database.h"
#include "tuner/tune_tasks.h"

namespace tf::cli {
namespace {

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

double ms(double seconds) { return std::isfinite(seconds) ? seconds * 1e3 : 0; }

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

void print_model_tune_result(const ModelTuneResult& r, bool as_json) {
  if (as_json) {
    std::printf("%s\n", graph::model_tune_result_json(r).dump(2).c_str());
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

ModelTuneResult tune_here(const ModelTuneArgs& a, const ModelTasks& m) {
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  graph::ModelTuneHooks hooks;
  hooks.note = [&](const std::string& line, bool detail) {
    if (!detail || !a.quiet) std::fprintf(stderr, "%s\n", line.c_str());
  };
  hooks.progress = [&](const tuner::TasksProgress& p, double other_nodes_ms) {
    if (!a.quiet) print_progress(p, m.tasks, other_nodes_ms, tty);
  };
  auto db = open_or_create_db(a.db_path);
  ModelTuneResult r = graph::tune_model_locally(a.tune, m, *db, hooks);
  if (tty && !a.quiet) std::fprintf(stderr, "\n");
  return r;
}

int model_tune_command(ModelTuneArgs a) {
  if (a.key.empty() && a.tracker.address_option && a.tracker.address_option->count()) {
    throw UsageError("--tracker needs --key: which of its boards should measure (see tunefarm devices)");
  }
  a.tune.import = import_options(a.shapes);
  a.tune.for_boards = !a.key.empty();
  ModelTasks m;
  ModelTuneResult r;
  try {
    m = graph::model_tasks(a.tune);
    if (a.key.empty()) r = tune_here(a, m);
  } catch (const graph::ModelTuneError& e) {
    throw UsageError(e.what());
  }
  if (!a.key.empty()) {
    if (int code = tune_model_on_fleet(a, m, &r); code != 0) return code;
  }
  print_model_tune_result(r, a.as_json);
  if (!a.as_json && r.state == "done") {
    // The build must bind the inputs as the tuning did, or its kernels are other workloads.
    const std::string shapes = shape_flags(a.shapes);
    if (a.key.empty()) {
      std::printf("next: tunefarm model build %s%s --db %s --threads %d -o MODEL.tfm\n", a.tune.model_path.c_str(),
                  shapes.c_str(), db::shown_location(a.db_path).c_str(), a.tune.threads);
    } else {
      std::printf("next: tunefarm model build %s%s --db TRACKER_DB --key %s --target '%s' -o MODEL.tfm\n",
                  a.tune.model_path.c_str(), shapes.c_str(), a.key.c_str(),
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
  cmd->add_option("model", a->tune.model_path, "the .onnx file")
      ->required()
      ->check(CLI::ExistingFile)
      ->type_name("M.onnx");
  add_measure_options(*cmd, a->tune.measure, kTuning | kCold);
  cmd->get_option("--trials")->description("candidates to measure across all the model's kernels");
  cmd->add_option(
         "--time-limit", a->tune.time_limit_s,
         "seconds of tuning after which no batch starts (the best configs are still confirmed and the model timed); "
         "0: none")
      ->type_name("S")
      ->check(CLI::Range(0.0, 7.0 * 24 * 3600));
  cmd->add_option("--scheduler", a->tune.scheduler, "where trials go: gradient or even")
      ->check(CLI::IsMember({"gradient", "even"}));
  cmd->add_option(
         "--layouts", a->tune.layouts,
         "graph: tune each conv's channel blocks (8, 16, 32) as alternatives and measure the conversions, so the build "
         "chooses the blocks for the whole graph; per-conv: blocks of 16, each conv alone")
      ->check(CLI::IsMember({"graph", "per-conv"}));
  add_input_shape_options(*cmd, a->shapes);
  add_threads_option(*cmd, a->tune.threads,
                     "threads of the kernels under measurement (this host; a board uses its own)");
  cmd->add_option("--target", a->tune.target,
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

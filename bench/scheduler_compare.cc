#include "bench/scheduler_compare.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bench/model_tuning.h"
#include "support/svg_chart.h"
#include "tuner/task_scheduler.h"

namespace tf::bench {
namespace {

struct Curve {
  ModelTuneRun run;
  double final_measured_ms = 0;
};

Curve tune_from_empty_db(const graph::Graph& imported, const SchedulerComparison& c, tuner::SchedulerPolicy policy,
                         const std::function<double(runtime::model::Executor&)>& measure) {
  const std::string path = c.work_dir + "/" + tuner::scheduler_policy_name(policy) + ".db";
  std::filesystem::remove(path);
  db::Database db(path);
  ModelTuneSettings s;
  s.target = c.target;
  s.threads = c.threads;
  s.trials = c.trials;
  s.scheduler = policy;
  s.min_repeat_ms = c.min_repeat_ms;
  s.checkpoint = c.checkpoint;
  s.measure = measure;
  std::fprintf(stderr, "models_bench: %s, %d thread(s): %lld trials with the %s scheduler from an empty db\n",
               c.model.c_str(), c.threads, static_cast<long long>(c.trials), tuner::scheduler_policy_name(policy));
  Curve out;
  out.run = tune_model_tasks(imported, c.model, s, db);
  auto exec = build_from_db(imported, c.target, c.threads, &db);
  out.final_measured_ms = measure(*exec);
  return out;
}

// A curve as one value per trial (the last point at or before it), as the chart draws series.
std::vector<double> per_trial(const ModelTuneRun& run, int64_t trials, bool measured) {
  std::vector<double> y;
  double last = 0;
  size_t next = 0;
  for (int64_t t = 1; t <= trials; ++t) {
    while (next < run.curve.size() && run.curve[next].trials <= t) {
      const double v = measured ? run.curve[next].measured_ms : run.curve[next].estimated_ms;
      if (v > 0) last = v;
      ++next;
    }
    y.push_back(last);
  }
  // Before the first point there is nothing to draw: start where the curve starts.
  for (double& v : y) {
    if (v > 0) break;
    v = last;
  }
  return y;
}

Json curve_json(const ModelTuneRun& run) {
  Json points = Json::array();
  for (const auto& p : run.curve) {
    Json point = {{"trials", p.trials}, {"estimated_ms", p.estimated_ms}};
    if (p.measured_ms > 0) point["measured_ms"] = p.measured_ms;
    points.push_back(point);
  }
  return points;
}

}  // namespace

void compare_schedulers(const graph::Graph& imported, const SchedulerComparison& c,
                        const std::function<double(runtime::model::Executor&)>& measure, Json& rows, Targets& targets) {
  std::filesystem::create_directories(c.work_dir);
  const Curve even = tune_from_empty_db(imported, c, tuner::SchedulerPolicy::Even, measure);
  const Curve gradient = tune_from_empty_db(imported, c, tuner::SchedulerPolicy::Gradient, measure);
  for (const auto& [name, curve] : {std::pair<const char*, const Curve*>{"even", &even}, {"gradient", &gradient}}) {
    rows.push_back(Json{{"what", "scheduler_curve"},
                        {"model", c.model},
                        {"threads", c.threads},
                        {"scheduler", name},
                        {"trials", curve->run.result.trials},
                        {"tuning_seconds", curve->run.result.seconds},
                        {"final_estimated_ms", curve->run.result.estimated_ms},
                        {"final_measured_ms", curve->final_measured_ms},
                        {"points", curve_json(curve->run)}});
  }
  // The first checkpoint at which the gradient scheduler's model measured at least as fast as the
  // even split's did at the end.
  int64_t reached = -1;
  for (const auto& p : gradient.run.curve) {
    if (p.measured_ms > 0 && p.measured_ms <= even.final_measured_ms) {
      reached = p.trials;
      break;
    }
  }
  if (reached < 0 && gradient.final_measured_ms <= even.final_measured_ms) reached = gradient.run.result.trials;
  const double share = reached < 0 ? INFINITY : static_cast<double>(reached) / static_cast<double>(c.trials);
  targets.add(c.model + " " + std::to_string(c.threads) +
                  "-thread: trials the gradient scheduler needs to reach the even split's final " +
                  "measured latency (" + std::to_string(even.final_measured_ms) + " ms), as a share of the budget",
              share, "<= 0.6", share <= 0.6);

  std::vector<ChartSeries> series = {{"gradient, estimated", per_trial(gradient.run, c.trials, false)},
                                     {"even, estimated", per_trial(even.run, c.trials, false)},
                                     {"gradient, measured", per_trial(gradient.run, c.trials, true)},
                                     {"even, measured", per_trial(even.run, c.trials, true)}};
  std::ofstream(c.svg_path) << line_chart_svg(
      c.model + ", " + std::to_string(c.threads) + " thread(s): latency against trials, gradient vs even scheduler",
      "trials (whole model)", "ms per run", series);
  std::fprintf(stderr, "models_bench: plot in %s\n", c.svg_path.c_str());
}

}  // namespace tf::bench

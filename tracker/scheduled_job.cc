// A model's job on the fleet: every workload tuned under one budget, each batch where the task
// scheduler says (tuner/tune_tasks.h), each workload's candidates measured by the key's boards
// through a FleetMeasurer of its own. Progress per workload as in any job, and the model's
// estimated latency; resumed after a restart like any job (each workload replays its measurements).
#include <chrono>
#include <cmath>

#include "compiler/compiler.h"
#include "proto/json_convert.h"
#include "tracker/fleet_measurer.h"
#include "tracker/job_run.h"
#include "tuner/tune_tasks.h"

namespace tf::tracker {

using Clock = std::chrono::steady_clock;

void JobManager::run_scheduled(const std::shared_ptr<Run>& run, db::Database& db, const v1::JobSpec& spec, int64_t id) {
  const std::string& key = spec.device_key();
  const std::string target = wait_for_target(run, key);
  if (run->stop) return;
  const codegen::Target parsed = codegen::parse_target(target);
  std::vector<std::unique_ptr<compiler::Task>> tasks;
  std::vector<tuner::TaskToTune> to_tune;
  for (int i = 0; i < spec.workloads_size(); ++i) {
    const v1::Workload& w = spec.workloads(i);
    tasks.push_back(
        std::make_unique<compiler::Task>(ops::Workload{w.op(), {w.shape().begin(), w.shape().end()}}, parsed));
    to_tune.push_back({tasks.back().get(), i < spec.calls_size() ? static_cast<double>(spec.calls(i)) : 1.0,
                       i < spec.groups_size() ? static_cast<int>(spec.groups(i)) - 1 : -1});
  }
  tuner::TuneTasksOptions o;
  o.trials = spec.trials();
  o.scheduler = tuner::parse_scheduler_policy(spec.scheduler());
  o.time_limit_s = spec.time_limit_s();
  o.each = tune_options(run, spec, id);
  o.make_measurer = [&](const compiler::Task& task) -> std::unique_ptr<tuner::Measurer> {
    return std::make_unique<FleetMeasurer>(dispatcher_, id, spec.priority(), key, task.workload());
  };
  change(run, [&](v1::Job& j) {
    j.set_state(v1::RUNNING);
    j.set_message("");
    for (auto& wp : *j.mutable_workloads()) wp.set_state("running");
  });
  persist(db, run, true);

  int64_t replayed = 0;
  const auto loop_start = Clock::now();
  const tuner::TuneTasksResult r = tuner::tune_tasks(to_tune, o, &db, [&](const tuner::TasksProgress& p) {
    if (p.replayed) replayed = p.trials;
    change(run, [&](v1::Job& j) {
      for (size_t i = 0; i < p.tasks.size(); ++i) {
        auto* wp = j.mutable_workloads(static_cast<int>(i));
        const tuner::TaskProgress& tp = p.tasks[i];
        wp->set_trials(tp.trials);
        wp->set_trials_done(tp.trials);
        if (std::isfinite(tp.best_s())) {
          wp->set_best_gflops(static_cast<double>(tasks[i]->op().flops(tasks[i]->workload().shape)) / tp.best_s() *
                              1e-9);
        }
      }
      j.set_estimated_ms(p.estimated_s * 1e3);
      j.set_elapsed_s(std::chrono::duration<double>(Clock::now() - run->started).count());
      const double per_trial = std::chrono::duration<double>(Clock::now() - loop_start).count() /
                               static_cast<double>(std::max<int64_t>(1, p.trials - replayed));
      double eta_s = per_trial * static_cast<double>(std::max<int64_t>(0, p.budget - p.trials));
      if (o.time_limit_s > 0) eta_s = std::min(eta_s, std::max(0.0, o.time_limit_s - p.elapsed_s));
      j.set_eta_s(eta_s);
    });
    persist(db, run, false);
  });
  change(run, [&](v1::Job& j) {
    for (size_t i = 0; i < r.tasks.size(); ++i) {
      auto* wp = j.mutable_workloads(static_cast<int>(i));
      set_outcome(wp, r.tasks[i]);
      wp->set_trials(r.tasks[i].trials);
      // A budget smaller than the warm-up round leaves some workloads untried: not a failure, their
      // kernels keep the default config.
      if (r.tasks[i].trials == 0 && !r.stopped) wp->set_state("untried");
    }
    j.set_estimated_ms(r.estimated_s * 1e3);
    j.set_time_limit_reached(r.out_of_time);
    if (r.out_of_time) {
      j.set_message("time limit of " + std::to_string(static_cast<int64_t>(o.time_limit_s)) + " s reached after " +
                    std::to_string(r.trials) + " of " + std::to_string(o.trials) + " trials");
    }
  });
  persist(db, run, true);
}

}  // namespace tf::tracker

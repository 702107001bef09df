#include "regress/regression_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "compiler/compiler.h"
#include "regress/report.h"
#include "support/stats.h"

namespace tf::regress {
namespace {

using Clock = std::chrono::steady_clock;

// This compiler's build of `config` for the comparer's target. Throws with the workload and the
// reason (a config the space does not have, a code generation failure).
KernelBinary build_current(const ops::Workload& w, const Json& config, const std::string& target) {
  compiler::Task task(w, codegen::parse_target(target));
  const space::Config cfg = task.space().from_json(config);
  codegen::SharedLibrary lib = task.build_shared_library(cfg);
  return KernelBinary{"current", std::move(lib.bytes), lib.entry_symbol};
}

}  // namespace

double gflops_of(const ops::Workload& w, const std::vector<double>& costs) {
  const double t = median(costs);
  return t > 0 ? static_cast<double>(ops::find_operator(w.op).flops(w.shape)) / t * 1e-9 : 0;
}

int RegressReport::exit_code() const {
  bool failed = false, worse = false, compared = false;
  for (const auto& w : workloads) {
    failed |= w.status == "failed";
    worse |= w.status == "slower" || w.status == "broken";
    compared |= w.status != "no_baseline" && w.status != "failed";
  }
  if (failed || !compared) return 2;
  return worse ? 1 : 0;
}

std::vector<SavedWorkload> save_baseline(const std::string& name, const Suite& suite, Comparer& comparer,
                                         const BestConfigFn& best, db::Database& db, bool replace,
                                         const RunSettings& settings, const ProgressFn& progress) {
  if (!replace && !db.baseline(name).empty()) {
    throw db::DbError("baseline '" + name + "' exists; --replace to overwrite it, or choose another name");
  }
  std::vector<SavedWorkload> out;
  std::vector<db::Baseline> entries;
  bool any_failed = false;
  for (const SuiteWorkload& sw : suite.workloads) {
    SavedWorkload s;
    s.name = sw.name;
    s.workload_key = sw.workload.str();
    std::optional<Json> config = best(sw);
    if (!config) {
      s.status = "untuned";
      s.error =
          "no tuned config for " + s.workload_key + " on " + comparer.target() + " (key " + comparer.device_key() + ")";
      if (progress) progress(sw.name + ": " + s.error);
      out.push_back(std::move(s));
      continue;
    }
    s.config = *config;
    try {
      KernelBinary bin = build_current(sw.workload, *config, comparer.target());
      if (progress)
        progress(sw.name + ": measuring " + config->dump() + " (" + std::to_string(settings.rounds) + " timings)");
      Comparison c = comparer.compare(sw.workload, {bin}, settings.rounds, settings.measure);
      const ComparedKernel& k = c.kernels.front();
      if (k.status != runtime::MeasureStatus::Ok) throw std::runtime_error("the kernel failed: " + k.error);
      db::Baseline b;
      b.name = name;
      b.op = sw.workload.op;
      b.shape = sw.workload.shape;
      b.target = comparer.target();
      b.device_key = comparer.device_key();
      b.config = *config;
      b.compiler_version = compiler::version();
      b.costs = k.costs;
      b.library = std::move(bin.library);
      b.entry_symbol = bin.entry_symbol;
      b.device = c.device;
      b.measure = Json::object();
      b.measure["min_repeat_ms"] = settings.measure.min_repeat_ms;
      b.measure["timings"] = static_cast<int64_t>(k.costs.size());
      s.gflops = gflops_of(sw.workload, k.costs);
      s.status = "saved";
      if (progress) progress(sw.name + ": " + format_value("%.1f GFLOPS", s.gflops));
      entries.push_back(std::move(b));
    } catch (const RunError&) {
      throw;
    } catch (const std::exception& e) {
      s.status = "failed";
      s.error = s.workload_key + " with " + config->dump() + ": " + e.what();
      any_failed = true;
      if (progress) progress(sw.name + ": FAILED: " + s.error);
    }
    out.push_back(std::move(s));
  }
  if (!any_failed && !entries.empty()) db.save_baseline(name, entries, replace);
  return out;
}

RegressReport run_regress(const std::string& baseline, const Suite& suite, Comparer& comparer, const BestConfigFn& best,
                          db::Database& db, const RunSettings& settings, const ProgressFn& progress) {
  const auto start = Clock::now();
  std::vector<db::Baseline> entries = db.baseline(baseline);
  if (entries.empty())
    throw RunError("no baseline named '" + baseline + "' in the db (tunefarm baseline list shows them)");
  RegressReport report;
  report.baseline = baseline;
  report.suite = suite.path;
  report.where = comparer.where();
  report.target = comparer.target();
  report.timing_isolation = comparer.timing_isolation();
  report.rounds = settings.rounds;
  for (const SuiteWorkload& sw : suite.workloads) {
    const auto w_start = Clock::now();
    WorkloadVerdict v;
    v.name = sw.name;
    v.workload_key = sw.workload.str();
    v.threshold = suite.threshold_for(sw, settings.threshold);
    v.current_compiler = compiler::version();
    const db::Baseline* base = nullptr;
    for (const auto& e : entries) {
      if (e.op == sw.workload.op && e.shape == sw.workload.shape && (!base || e.target == comparer.target())) base = &e;
    }
    if (!base) {
      v.status = "no_baseline";
      v.error = "baseline '" + baseline + "' has no entry for " + v.workload_key + " (saved before the suite had it?)";
      if (progress) progress(sw.name + ": " + v.error);
      report.workloads.push_back(std::move(v));
      continue;
    }
    v.baseline_config = base->config;
    v.baseline_compiler = base->compiler_version;
    v.current_config = best(sw).value_or(base->config);
    v.config_changed = v.current_config != base->config;
    try {
      KernelBinary current = build_current(sw.workload, v.current_config, comparer.target());
      KernelBinary old{"baseline", base->library, base->entry_symbol};
      if (progress) {
        progress(sw.name + ": baseline and current build, " + std::to_string(settings.rounds) + " interleaved rounds" +
                 (v.config_changed ? " (the best config changed since the baseline)" : ""));
      }
      Comparison c = comparer.compare(sw.workload, {old, current}, settings.rounds, settings.measure);
      v.device = c.device;
      if (report.device.find(c.device) == std::string::npos)
        report.device += (report.device.empty() ? "" : ", ") + c.device;
      const ComparedKernel &b = c.kernels[0], &k = c.kernels[1];
      if (b.status != runtime::MeasureStatus::Ok) {
        throw std::runtime_error("the baseline's stored library failed on " + c.device + ": " + b.error);
      }
      if (k.status != runtime::MeasureStatus::Ok) {
        v.status = "broken";
        v.error = "this compiler's build of " + v.current_config.dump() + " fails: " + k.error;
      } else {
        v.ratio = paired_speed_ratio(b.costs, k.costs);
        v.status = verdict_name(decide(v.ratio, v.threshold));
        v.baseline_gflops = gflops_of(sw.workload, b.costs);
        v.current_gflops = gflops_of(sw.workload, k.costs);
      }
    } catch (const std::exception& e) {  // RunError too: the report still tells what was compared
      v.status = "failed";
      v.error = v.workload_key + ": " + e.what();
    }
    v.seconds = std::chrono::duration<double>(Clock::now() - w_start).count();
    if (progress) {
      progress(sw.name + ": " + v.status +
               (v.status == "failed" || v.status == "broken"
                    ? " - " + v.error
                    : format_value(" %.3fx", v.ratio.median) + format_value(" (95%% CI %.3f", v.ratio.low) +
                          format_value("-%.3f)", v.ratio.high)));
    }
    report.workloads.push_back(std::move(v));
  }
  report.timing_isolation = comparer.timing_isolation();  // of the board that measured, now it is known
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace tf::regress

// The path of a CI regression run, start to finish.
//   save_baseline: for each workload of a suite, its best config (from the caller: the db, the
//     tracker, or a short tuning run) is built by this compiler and measured; the config, the
//     compiler version, the timings and the library itself are stored under a name.
//   run_regress: for each workload, the config that is best now is built by this compiler and
//     measured in turn with the baseline's stored library on one machine; the paired speed ratio
//     (regress/paired_ratio.h) decides faster / unchanged / slower.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/database.h"
#include "regress/comparer.h"
#include "regress/paired_ratio.h"
#include "regress/suite.h"
#include "support/json.h"

namespace tf::regress {

// The config to build for a workload (JSON as the db keeps it), or none when it was never tuned.
using BestConfigFn = std::function<std::optional<Json>(const SuiteWorkload&)>;
// One line of progress for a person watching.
using ProgressFn = std::function<void(const std::string&)>;

struct RunSettings {
  int rounds = 15;                  // interleaved rounds (regress) or timings (baseline save)
  runtime::MeasureOptions measure;  // repeat is ignored: one timing per turn
  std::optional<double> threshold;  // the command line's, over the suite's
};

struct SavedWorkload {
  std::string name, workload_key;
  std::string status;  // saved, untuned, failed
  std::string error;
  Json config;
  double gflops = 0;
};

// Builds and measures every tuned workload, then stores them all under `name` in one transaction:
// nothing is stored when a workload failed (a build error, a kernel that fails) or none was tuned.
// Throws db::DbError when `name` exists and not `replace`, RunError when measuring fails.
std::vector<SavedWorkload> save_baseline(const std::string& name, const Suite& suite, Comparer& comparer,
                                         const BestConfigFn& best, db::Database& db, bool replace,
                                         const RunSettings& settings, const ProgressFn& progress = {});

struct WorkloadVerdict {
  std::string name, workload_key;
  // faster, unchanged, slower; broken (the current build crashes or computes wrong: a regression);
  // no_baseline (the baseline lacks the workload); failed (the run could not compare it).
  std::string status;
  std::string error;
  double threshold = 0;
  PairedRatio ratio;
  double baseline_gflops = 0, current_gflops = 0;  // medians over the rounds
  Json baseline_config, current_config;
  bool config_changed = false;
  std::string baseline_compiler, current_compiler;
  std::string device;  // the board or host both kernels ran on
  double seconds = 0;
};

struct RegressReport {
  std::string baseline, suite, where, target, timing_isolation;
  std::string device;  // every board or host that measured, comma-separated
  int rounds = 0;
  std::vector<WorkloadVerdict> workloads;
  double seconds = 0;
  // 2 when the run failed anywhere (or compared nothing), else 1 when anything is slower or broken,
  // else 0.
  int exit_code() const;
};

// GFLOPS of `w` at the median of `costs` (seconds per run); 0 when there are none.
double gflops_of(const ops::Workload& w, const std::vector<double>& costs);

// Throws RunError when the baseline does not exist.
RegressReport run_regress(const std::string& baseline, const Suite& suite, Comparer& comparer, const BestConfigFn& best,
                          db::Database& db, const RunSettings& settings, const ProgressFn& progress = {});

}  // namespace tf::regress

// A local tuning job, start to finish: the path every candidate takes (propose -> build -> measure
// in a worker -> record in the db -> learn) is tune() in tune_job.cc. The tracker of the fleet issue
// runs the same loop with boards in place of the local worker.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "db/database.h"
#include "runtime/measure.h"

namespace tf::tuner {

class Builder;
class Measurer;

struct TuneOptions {
  std::string tuner = "random";
  int64_t trials = 200;
  int batch = 16;  // configs proposed at a time
  uint64_t seed = 1;
  int threads = 1;          // threads of the kernel under measurement
  int compile_threads = 0;  // candidates built in parallel while earlier ones are measured; 0: one per core
  std::string device_key = "local";
  runtime::MeasureOptions measure;
  std::string worker_path;
  // The xgb tuner of a job whose db holds no history of its op and target starts from the records
  // shipped with tunefarm (tuner/seed_records.h); false: from nothing.
  bool seed_records = true;
  // The xgb tuner measures the template's default config first, so a job never ends below an
  // untuned build; false leaves the first trials to the search alone (how benchmarks compare
  // search strategies rather than the template's default).
  bool default_first = true;
  // At the end, the fastest few configs are measured again (in a fresh worker process when local)
  // and ranked on both measurements; 0: the job's best is its fastest single measurement.
  int confirm_top = 3;  // empty: runtime::MeasureWorker::default_path()

  // Where candidates are built and measured; null: on this host (a LocalBuilder with
  // compile_threads threads, a LocalMeasurer with a worker process). The tracker passes its builder
  // pool and the boards of the job's key.
  Builder* builder = nullptr;
  Measurer* measurer = nullptr;
  // An existing job (the tracker's) to record under: tune() then leaves the job's state to the
  // caller, and with `resume` first replays the job's measurements of this workload into the tuner
  // (a tracker restarted mid-job) and runs only the trials left.
  std::optional<int64_t> job_id;
  bool resume = false;
  std::string owner = "local";
  // Set from another thread to end the job after the candidates in flight.
  const std::atomic<bool>* stop = nullptr;
};

struct Progress {
  int64_t trial = 0, trials = 0;
  double gflops = 0, best_gflops = 0;
  std::string outcome;  // of the last trial
  int64_t ok = 0, failed = 0;
  Json best_config;
  double elapsed_s = 0, eta_s = 0;
};

// Where a job's wall time went, in seconds: the parts the job's own thread waited on, so they add
// up to about its wall time (builds overlap measuring; only the wait for one counts).
struct TimeSpent {
  double start = 0;       // history transfer, the workload's reference output, the worker's start
  double search = 0;      // the tuner proposing and learning
  double build_wait = 0;  // waiting for a candidate's build
  double timed = 0;       // the kernels' own timed runs
  double measuring = 0;   // the rest of each measure call: load, warm-up, check, calibration, protocol
  double record = 0;      // database writes
  double confirm = 0;     // the fastest configs measured again at the end
  TimeSpent& operator+=(const TimeSpent& o);
  double total() const { return start + search + build_wait + timed + measuring + record + confirm; }
};

struct TuneResult {
  int64_t job_id = 0;  // in the db, when one was given
  int64_t trials = 0;  // including those replayed from the db when resuming
  int64_t ok = 0, failed = 0;
  int64_t replayed = 0;
  bool stopped = false;  // ended early by TuneOptions::stop
  double best_gflops = 0;
  std::optional<db::Measurement> best;
  std::vector<double> best_curve;  // best GFLOPS so far after each trial (as measured in the search)
  double default_s = 0;            // the template's default config, seconds per call (0: not measured)
  int64_t confirmed = 0;           // configs measured again at the end; best and best_gflops are from both
  double seconds = 0;
  // Per trial, medians in ms: building the candidate (overlapped with measuring the one before);
  // the trial's wall time less the kernel's own timed runs (everything else: waiting for the
  // build, the tuner at a batch's start, loading, warm-up, check, protocol, db write); and the part
  // of that spent in the measure call and the db write.
  double build_ms_median = 0, overhead_ms_median = 0, worker_overhead_ms_median = 0;
  // The tuner's own time (proposing and learning; the job waits for it), per trial.
  double search_ms_per_trial = 0;
  TimeSpent spent;
  std::string timing_isolation;  // how measurements were kept from overlapping, for the output
  std::string transfer;          // what the xgb tuner started from (history, seed records, nothing)
};

// Runs the job; records every measurement in `db` when given. Throws tf::CompileError for an unknown
// tuner and std::runtime_error when the worker cannot be started.
TuneResult tune(const compiler::Task& task, const TuneOptions& opts, db::Database* db,
                const std::function<void(const Progress&)>& on_progress = {});

class TuneRun;

// One task's tuning taken a batch at a time: the phases tune() runs start to finish, for a job that
// interleaves many tasks (tuner/task_jobs.h). `task` must outlive it.
class TaskTuning {
 public:
  TaskTuning(const compiler::Task& task, const TuneOptions& opts, db::Database* db,
             std::function<void(const Progress&)> on_progress = {});
  ~TaskTuning();
  // Replays a resumed job's measurements of this workload, computes the reference, starts the worker.
  void start();
  // One batch of at most max_batch candidates; false when the budget or space is spent or the job
  // was stopped.
  bool step(int max_batch);
  // Measures the fastest again, ends a job of its own, saves the cost model.
  void finish();
  TuneResult summary();
  const TuneResult& result() const;  // so far
  bool exhausted() const;            // every config proposed, or the budget spent

 private:
  std::unique_ptr<TuneRun> run_;
};

// The device key of local measurements with `threads` threads: "local" for one, "local-Nt" for N.
// A kernel's speed at 2 threads says little about it at 1, so each thread count is its own device:
// its own best configs, history and cost model.
std::string local_device_key(int threads);

// The reference inputs and output a worker checks candidates against (runtime/random_fill.h).
runtime::WorkloadSetup make_workload_setup(const compiler::Task& task, uint64_t seed);

}  // namespace tf::tuner

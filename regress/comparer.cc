#include "regress/comparer.h"

#include <unistd.h>

#include "compiler/compiler.h"
#include "tuner/interleave.h"
#include "tuner/tune_job.h"

namespace tf::regress {

LocalComparer::LocalComparer(std::string target, int threads, std::string worker_path)
    : target_(std::move(target)),
      threads_(threads),
      worker_path_(worker_path.empty() ? runtime::MeasureWorker::default_path() : std::move(worker_path)),
      timing_lock_(runtime::MeasureOptions{}.timing_lock) {}

std::string LocalComparer::device_key() const { return tuner::local_device_key(threads_); }

std::string LocalComparer::where() const {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string("a worker process on ") + host + ", " + std::to_string(threads_) + " thread(s)";
}

std::string LocalComparer::timing_isolation() const {
  return "host-wide lock " + timing_lock_ + " held while timing (a local board or tuning job on this host waits)";
}

Comparison LocalComparer::compare(const ops::Workload& workload, const std::vector<KernelBinary>& kernels, int rounds,
                                  const runtime::MeasureOptions& opts) {
  tuner::LocalMeasurer worker(worker_path_, threads_);
  try {
    compiler::Task task(workload, codegen::parse_target(target_));
    worker.setup(tuner::make_workload_setup(task, 1));
  } catch (const std::exception& e) {
    throw RunError("preparing " + workload.str() + " in a measure worker: " + e.what());
  }
  std::vector<tuner::KernelToCompare> to_compare;
  to_compare.reserve(kernels.size());
  for (const auto& k : kernels) to_compare.push_back({k.library, k.entry_symbol});
  runtime::MeasureOptions locked = opts;
  locked.timing_lock = timing_lock_;
  const tuner::Interleaved run = tuner::measure_interleaved(worker, to_compare, rounds, locked);
  if (!run.aborted.empty()) throw RunError("measuring " + workload.str() + ": " + run.aborted);
  Comparison out;
  out.device = where();
  out.kernels = run.kernels;
  return out;
}

}  // namespace tf::regress

#include "regress/comparer.h"

#include <unistd.h>

#include "compiler/compiler.h"
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
  Comparison out;
  out.device = where();
  out.kernels.resize(kernels.size());
  runtime::MeasureWorker worker(worker_path_, {}, threads_);
  try {
    compiler::Task task(workload, codegen::parse_target(target_));
    worker.setup(tuner::make_workload_setup(task, 1));
  } catch (const std::exception& e) {
    throw RunError("preparing " + workload.str() + " in a measure worker: " + e.what());
  }
  // One timing per turn; after a kernel's first turn its runs per timing stay fixed, so every
  // later timing of it covers the same work.
  std::vector<runtime::MeasureOptions> per_kernel(kernels.size(), opts);
  for (auto& o : per_kernel) {
    o.repeat = 1;
    o.timing_lock = timing_lock_;
  }
  for (int round = 0; round < rounds; ++round) {
    // Odd rounds run the kernels in reverse order, so neither always goes first (after the other
    // has warmed or cooled the caches and the clock).
    for (size_t turn = 0; turn < kernels.size(); ++turn) {
      const size_t k = round % 2 ? kernels.size() - 1 - turn : turn;
      ComparedKernel& c = out.kernels[k];
      if (c.status != runtime::MeasureStatus::Ok) continue;
      runtime::MeasureResult m = worker.measure(kernels[k].library, kernels[k].entry_symbol, per_kernel[k]);
      if (m.status != runtime::MeasureStatus::Ok || m.costs.empty()) {
        c.status = m.status == runtime::MeasureStatus::Ok ? runtime::MeasureStatus::RuntimeError : m.status;
        c.error = "round " + std::to_string(round + 1) + ": " + (m.error.empty() ? "no timing" : m.error);
        continue;
      }
      if (per_kernel[k].number == 0) per_kernel[k].number = m.number;
      c.costs.push_back(m.costs.front());
    }
  }
  return out;
}

}  // namespace tf::regress

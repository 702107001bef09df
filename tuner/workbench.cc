#include "tuner/workbench.h"

#include <algorithm>

#include "runtime/thread_pool.h"

namespace tf::tuner {

Workbench::Workbench(const TuneOptions& opts) : worker_path_(opts.worker_path), threads_(opts.threads) {
  const std::vector<int> cpus = runtime::usable_cpus();
  const int cores = static_cast<int>(std::max<size_t>(1, cpus.size()));
  const int build_threads = opts.compile_threads > 0 ? opts.compile_threads : cores;
  if (!opts.measurer) cores_ = std::make_shared<TimingCores>(cpus, opts.threads);
  builder_ = opts.builder;
  if (!builder_) {
    if (cores_) {
      own_builder_ = std::make_unique<LocalBuilder>(build_threads, cores_, opts.measure.timing_lock);
    } else {
      own_builder_ = std::make_unique<LocalBuilder>(build_threads);  // measured elsewhere: nothing to disturb here
    }
    builder_ = own_builder_.get();
  }
  measurer_ = opts.measurer;
  if (!measurer_) {
    own_measurer_ = std::make_unique<LocalMeasurer>(opts.worker_path, opts.threads, cores_);
    measurer_ = own_measurer_.get();
    const std::string builds = cores_->takes_turns()
                                   ? "; builds wait for each timing, and it for them"
                                   : "; the kernel pinned to CPU " + runtime::cpu_list_text(cores_->kernel_cpus()) +
                                         ", builds leave it while it is timed";
    timing_isolation_ = opts.measure.timing_lock.empty()
                            ? "none (no timing lock)" + builds
                            : "host-wide lock " + opts.measure.timing_lock + " held while timing" + builds;
  }
}

std::unique_ptr<Measurer> Workbench::fresh_local_measurer(const runtime::WorkloadSetup& setup) const {
  if (!cores_) return nullptr;
  auto fresh = std::make_unique<LocalMeasurer>(worker_path_, threads_, cores_);
  fresh->setup(setup);
  return fresh;
}

}  // namespace tf::tuner

#include "tuner/measurer.h"

#include <unistd.h>

namespace tf::tuner {

LocalMeasurer::LocalMeasurer(const std::string& worker_path, int threads, std::shared_ptr<TimingCores> cores)
    : cores_(std::move(cores)),
      worker_(worker_path.empty() ? runtime::MeasureWorker::default_path() : worker_path,
              cores_ ? cores_->kernel_cpus() : std::vector<int>{}, threads) {
  char buf[256] = {0};
  ::gethostname(buf, sizeof buf - 1);
  host_ = buf;
}

std::future<Measured> LocalMeasurer::measure(std::vector<uint8_t> library, std::string entry,
                                             const runtime::MeasureOptions& opts) {
  return std::async(std::launch::deferred, [this, library = std::move(library), entry = std::move(entry), opts] {
    Measured m;
    TimingTurn no_builds_here(cores_.get());
    m.result = worker_.measure(library, entry, opts);
    m.device = host_;
    return m;
  });
}

}  // namespace tf::tuner

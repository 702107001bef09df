#include "tuner/interleave.h"

#include <chrono>

namespace tf::tuner {

Interleaved measure_interleaved(Measurer& measurer, const std::vector<KernelToCompare>& kernels, int rounds,
                                const runtime::MeasureOptions& opts,
                                const std::function<void(const std::string&)>& on_first_device,
                                const std::function<bool()>& cancelled) {
  Interleaved out;
  out.kernels.resize(kernels.size());
  std::vector<runtime::MeasureOptions> per_kernel(kernels.size(), opts);
  for (auto& o : per_kernel) o.repeat = 1;
  for (int round = 0; round < rounds; ++round) {
    for (size_t turn = 0; turn < kernels.size(); ++turn) {
      const size_t k = round % 2 ? kernels.size() - 1 - turn : turn;
      KernelTimings& t = out.kernels[k];
      if (t.status != runtime::MeasureStatus::Ok) continue;
      auto done = measurer.measure(kernels[k].library, kernels[k].entry_symbol, per_kernel[k]);
      // A local measurer answers when asked (a deferred future); a fleet's when a board reports.
      while (cancelled && done.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout) {
        if (cancelled()) {
          out.aborted = "cancelled";
          return out;
        }
      }
      Measured m = done.get();
      if (m.cancelled) {
        out.aborted = "the measurer shut down";
        return out;
      }
      if (m.board_lost) {
        out.aborted = m.result.error;
        return out;
      }
      if (out.device.empty()) {
        out.device = m.device;
        if (on_first_device) on_first_device(m.device);
      }
      if (m.result.status != runtime::MeasureStatus::Ok || m.result.costs.empty()) {
        t.status =
            m.result.status == runtime::MeasureStatus::Ok ? runtime::MeasureStatus::RuntimeError : m.result.status;
        t.error = "round " + std::to_string(round + 1) + ": " + (m.result.error.empty() ? "no timing" : m.result.error);
        continue;
      }
      if (per_kernel[k].number == 0) per_kernel[k].number = m.result.number;
      t.costs.push_back(m.result.costs.front());
    }
  }
  return out;
}

}  // namespace tf::tuner

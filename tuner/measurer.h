// Where candidates are measured: a worker process on this host (LocalMeasurer), or the boards of a
// fleet (the tracker's FleetMeasurer). The tuning loop hands each built candidate to a Measurer and
// collects the results, so it runs unchanged in `tunefarm tune` and in the tracker.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "runtime/measure.h"
#include "runtime/measure_worker.h"
#include "tuner/timing_cores.h"

namespace tf::tuner {

struct Measured {
  runtime::MeasureResult result;
  std::string device;       // which host or board measured it
  bool cancelled = false;   // the job was cancelled or the measurer shut down: not a result, record nothing
  bool board_lost = false;  // a fleet item bound to one board that left: not the kernel's fault
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // The workload every following measure() checks against.
  virtual void setup(const runtime::WorkloadSetup& setup) = 0;
  // Starts measuring a built candidate. Never throws for anything the kernel does: crashes, hangs
  // and wrong answers are statuses in the result.
  virtual std::future<Measured> measure(std::vector<uint8_t> library, std::string entry,
                                        const runtime::MeasureOptions& opts) = 0;
  // Candidates that may be in flight at once (1: one after another).
  virtual int capacity() const = 0;
};

// One worker process on this host, one candidate at a time: measure() runs when its result is
// asked for, so the job's builds overlap the measuring.
class LocalMeasurer : public Measurer {
 public:
  // `cores`: the worker is pinned to its kernel CPUs, and the job's builders leave them while it
  // measures.
  LocalMeasurer(const std::string& worker_path, int threads, std::shared_ptr<TimingCores> cores = nullptr);
  void setup(const runtime::WorkloadSetup& setup) override { worker_.setup(setup); }
  std::future<Measured> measure(std::vector<uint8_t> library, std::string entry,
                                const runtime::MeasureOptions& opts) override;
  int capacity() const override { return 1; }

 private:
  std::shared_ptr<TimingCores> cores_;
  runtime::MeasureWorker worker_;
  std::string host_;
};

}  // namespace tf::tuner

// The boards of one device key as a tuner::Measurer: each built candidate becomes a work item on
// the dispatcher's queue for the key, and its result comes back from whichever board measured it.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "compiler/ops/operator.h"
#include "tracker/dispatcher.h"
#include "tuner/measurer.h"

namespace tf::tracker {

class FleetMeasurer : public tuner::Measurer {
 public:
  FleetMeasurer(Dispatcher& dispatcher, int64_t job_id, int priority, std::string key, const ops::Workload& workload);
  void setup(const runtime::WorkloadSetup& setup) override;
  std::future<tuner::Measured> measure(std::vector<uint8_t> library, std::string entry,
                                       const runtime::MeasureOptions& opts) override;
  // Enough items in flight to keep every board of the key busy (slots per board each).
  int capacity() const override;
  // From now on every item goes to this board ("host:pid", as Measured::device names it) or fails.
  void bind_to(std::string device) { terms_.only_device = std::move(device); }
  // Every library from now on is a caller's (Compare), not the tracker's build: each is measured
  // in a worker of its own on the board; with `needs_sandbox`, only by a board that confines kernels.
  void carry_foreign_libraries(bool needs_sandbox) {
    foreign_ = true;
    terms_.needs_sandbox = needs_sandbox;
  }

 private:
  Dispatcher& dispatcher_;
  int64_t job_id_;
  int priority_;
  std::string key_, workload_key_;
  std::shared_ptr<const v1::Reference> reference_;
  ItemTerms terms_;
  bool foreign_ = false;
};

}  // namespace tf::tracker

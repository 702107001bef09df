// One batch of a tuning job's candidates on their way to being measured: builds run ahead,
// builder.width() at a time, in proposal order (the whole batch before the first timing when
// builds and timings take turns), and up to measurer.capacity() built candidates are measured at
// once. A candidate that failed to build is answered as a load error without the
// measurer.
#pragma once

#include <atomic>
#include <cstddef>
#include <future>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/measure.h"
#include "tuner/builder.h"
#include "tuner/measurer.h"

namespace tf::tuner {

class CandidatePipeline {
 public:
  // `task` and `batch` must outlive the pipeline; `stop`, when set, ends the sending.
  CandidatePipeline(const compiler::Task& task, const std::vector<space::Config>& batch, Builder& builder,
                    Measurer& measurer, const runtime::MeasureOptions& measure, const std::atomic<bool>* stop);
  // Waits for the builds still queued: they refer to the task, and a batch can end early (when
  // recording a trial fails).
  ~CandidatePipeline();
  CandidatePipeline(const CandidatePipeline&) = delete;
  CandidatePipeline& operator=(const CandidatePipeline&) = delete;

  // Sends built candidates to be measured until every one before i + capacity is, or the job is
  // stopped; the time spent waiting for their builds is added to `build_wait_s`.
  void send_through(size_t i, double& build_wait_s);
  size_t sent() const { return sent_; }
  // Candidate i's measurement (sent), waited for; once per candidate.
  Measured take_measurement(size_t i) { return measuring_[i].get(); }
  Built& built(size_t i) { return built_[i]; }
  // Waits for the measurements still in flight (the measurer answers a stopped job's at once), so
  // nothing refers to the batch's builds afterwards.
  void wait_for_measurements();

 private:
  bool stopped() const { return stop_ && stop_->load(); }
  void start_builds();
  void wait_for_builds(double& build_wait_s);
  std::future<Measured> measure(const Built& built);

  const compiler::Task& task_;
  const std::vector<space::Config>& batch_;
  Builder& builder_;
  Measurer& measurer_;
  const runtime::MeasureOptions& measure_;
  const std::atomic<bool>* stop_;
  std::vector<std::future<Built>> builds_;
  std::vector<Built> built_;
  std::vector<std::future<Measured>> measuring_;
  size_t sent_ = 0;
};

}  // namespace tf::tuner

#include "tuner/candidate_pipeline.h"

#include "tuner/trial_times.h"

namespace tf::tuner {

CandidatePipeline::CandidatePipeline(const compiler::Task& task, const std::vector<space::Config>& batch,
                                     Builder& builder, Measurer& measurer, const runtime::MeasureOptions& measure,
                                     const std::atomic<bool>* stop)
    : task_(task),
      batch_(batch),
      builder_(builder),
      measurer_(measurer),
      measure_(measure),
      stop_(stop),
      built_(batch.size()),
      measuring_(batch.size()) {
  start_builds();
}

CandidatePipeline::~CandidatePipeline() {
  for (auto& b : builds_) {
    if (b.valid()) b.wait();
  }
}

// Keeps builder.width() builds ahead of the candidates sent to be measured, or the whole batch
// when builds and timings take turns.
void CandidatePipeline::start_builds() {
  const size_t ahead = builder_.takes_turns_with_timings() ? batch_.size() : static_cast<size_t>(builder_.width());
  while (builds_.size() < batch_.size() && builds_.size() < sent_ + ahead) {
    builds_.push_back(builder_.build(task_, batch_[builds_.size()]));
  }
}

void CandidatePipeline::send_through(size_t i, double& build_wait_s) {
  if (sent_ == 0 && builder_.takes_turns_with_timings()) wait_for_builds(build_wait_s);
  while (sent_ < batch_.size() && sent_ < i + static_cast<size_t>(measurer_.capacity()) && !stopped()) {
    const auto wait_start = TrialTimes::Clock::now();
    built_[sent_] = builds_[sent_].get();
    build_wait_s += seconds_since(wait_start);
    ++sent_;
    start_builds();
    measuring_[sent_ - 1] = measure(built_[sent_ - 1]);
  }
}

void CandidatePipeline::wait_for_builds(double& build_wait_s) {
  const auto wait_start = TrialTimes::Clock::now();
  for (auto& b : builds_) {
    if (stopped()) break;
    b.wait();
  }
  build_wait_s += seconds_since(wait_start);
}

std::future<Measured> CandidatePipeline::measure(const Built& built) {
  if (built.error.empty()) return measurer_.measure(built.lib.bytes, built.lib.entry_symbol, measure_);
  std::promise<Measured> failed;
  Measured m;
  m.result.status = runtime::MeasureStatus::LoadError;
  m.result.error = built.error;
  failed.set_value(m);
  return failed.get_future();
}

void CandidatePipeline::wait_for_measurements() {
  for (size_t i = 0; i < sent_; ++i) {
    if (measuring_[i].valid()) measuring_[i].wait();
  }
}

}  // namespace tf::tuner

// CandidatePipeline: the order in which a batch's builds and timings happen. Where builds and
// timings take turns (the kernel needs every core), a timing sent mid-batch would wait for the
// builds in flight with cores idle, so the whole batch is built before its first timing; elsewhere
// timings start while later candidates still build.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "tuner/candidate_pipeline.h"

namespace tf::tuner {
namespace {

// What happened, in order: "b<i>" candidate i's build ran, "m" a timing was sent.
struct EventLog {
  std::mutex mu;
  std::vector<std::string> events;
  void add(const std::string& e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(e);
  }
};

// Builds on demand, in the calling thread, when their result is asked for: a build is "in flight"
// until someone waits for it.
class DeferredBuilder : public Builder {
 public:
  DeferredBuilder(EventLog& log, bool takes_turns) : log_(log), takes_turns_(takes_turns) {}
  std::future<Built> build(const compiler::Task&, const space::Config&) override {
    const int index = started_++;
    return std::async(std::launch::deferred, [this, index] {
      log_.add("b" + std::to_string(index));
      return Built{};
    });
  }
  int width() const override { return 2; }
  bool takes_turns_with_timings() const override { return takes_turns_; }
  int started() const { return started_; }

 private:
  EventLog& log_;
  bool takes_turns_;
  int started_ = 0;
};

class LoggingMeasurer : public Measurer {
 public:
  explicit LoggingMeasurer(EventLog& log) : log_(log) {}
  void setup(const runtime::WorkloadSetup&) override {}
  std::future<Measured> measure(std::vector<uint8_t>, std::string, const runtime::MeasureOptions&) override {
    log_.add("m");
    std::promise<Measured> p;
    p.set_value(Measured{});
    return p.get_future();
  }
  int capacity() const override { return 1; }

 private:
  EventLog& log_;
};

std::vector<space::Config> first_configs(const compiler::Task& task, int n) {
  std::vector<space::Config> out;
  for (int i = 0; i < n; ++i) out.push_back(task.space().at(i));
  return out;
}

struct BatchRun {
  std::vector<std::string> events;
  int builds_started_before_first_send = 0;
};

BatchRun run_batch(bool takes_turns) {
  const compiler::Task task(ops::Workload{"dense", {16, 16, 16}}, codegen::parse_target("llvm"));
  const std::vector<space::Config> batch = first_configs(task, 6);
  EventLog log;
  DeferredBuilder builder(log, takes_turns);
  LoggingMeasurer measurer(log);
  const runtime::MeasureOptions options;
  CandidatePipeline pipeline(task, batch, builder, measurer, options, nullptr);
  BatchRun r;
  r.builds_started_before_first_send = builder.started();
  double build_wait_s = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    pipeline.send_through(i, build_wait_s);
    (void)pipeline.take_measurement(i);
  }
  pipeline.wait_for_measurements();
  r.events = log.events;
  return r;
}

TEST(CandidatePipeline, TakingTurnsTheWholeBatchIsBuiltBeforeItsFirstTiming) {
  const BatchRun r = run_batch(true);
  EXPECT_EQ(r.builds_started_before_first_send, 6);
  ASSERT_EQ(r.events.size(), 12u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(r.events[i], "b" + std::to_string(i)) << "event " << i;
  for (size_t i = 6; i < 12; ++i) EXPECT_EQ(r.events[i], "m") << "event " << i;
}

TEST(CandidatePipeline, WithCoresToSpareTimingsStartWhileLaterCandidatesBuild) {
  const BatchRun r = run_batch(false);
  EXPECT_EQ(r.builds_started_before_first_send, 2);  // the builder's width ahead
  ASSERT_EQ(r.events.size(), 12u);
  EXPECT_EQ(r.events[0], "b0");
  EXPECT_EQ(r.events[1], "m");  // candidate 0 timed before candidate 1 was waited for
  EXPECT_EQ(r.events.back(), "m");
}

}  // namespace
}  // namespace tf::tuner

// A job of many tasks with the model timed at checkpoints: each task's calls then count at what its
// best config takes inside the model, not at what the default config's ratio said.
#include <gtest/gtest.h>

#include <future>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "tuner/measurer.h"
#include "tuner/tune_tasks.h"

namespace tf {
namespace {

// Every candidate of a task takes the same time, so the bests are known without a worker.
class FixedTimeMeasurer : public tuner::Measurer {
 public:
  explicit FixedTimeMeasurer(double seconds) : seconds_(seconds) {}
  void setup(const runtime::WorkloadSetup&) override {}
  std::future<tuner::Measured> measure(std::vector<uint8_t>, std::string, const runtime::MeasureOptions&) override {
    tuner::Measured m;
    m.result.costs = {seconds_, seconds_};
    m.result.number = 1;
    m.device = "fixed";
    std::promise<tuner::Measured> done;
    done.set_value(m);
    return done.get_future();
  }
  int capacity() const override { return 1; }

 private:
  double seconds_;
};

struct TwoTasks {
  codegen::Target target = codegen::host_target();
  compiler::Task small{{"dense", {8, 16, 16}}, target};
  compiler::Task large{{"dense", {16, 32, 32}}, target};
  std::vector<tuner::TaskToTune> tasks{{&small, 2}, {&large, 1}};

  tuner::TuneTasksOptions options() const {
    tuner::TuneTasksOptions o;
    o.trials = 48;
    o.each.batch = 8;
    o.each.seed_records = false;
    o.each.confirm_top = 0;
    o.make_measurer = [](const compiler::Task& t) -> std::unique_ptr<tuner::Measurer> {
      return std::make_unique<FixedTimeMeasurer>(t.workload().shape[0] == 8 ? 1e-3 : 4e-3);
    };
    return o;
  }
};

TEST(TuneTasks, ATaskCountsAtItsBestConfigsTimeInsideTheModel) {
  TwoTasks two;
  tuner::TuneTasksOptions o = two.options();
  int timings = 0;
  // Inside the model the small dense takes three times its time alone; the large one what it takes alone.
  o.time_in_model = [&] {
    ++timings;
    return tuner::InModelTimes{{3e-3, 4e-3}, {1e-3, 4e-3}, 0.5e-3};
  };
  const tuner::TuneTasksResult r = tuner::tune_tasks(two.tasks, o, nullptr);
  EXPECT_EQ(r.trials, 48);
  EXPECT_EQ(timings, 3) << "the default in_model_checkpoints";
  EXPECT_EQ(r.in_model_timings, 3);
  ASSERT_EQ(r.in_model_scale.size(), 2u);
  EXPECT_DOUBLE_EQ(r.in_model_scale[0], 3);
  EXPECT_DOUBLE_EQ(r.in_model_scale[1], 1);
  EXPECT_NEAR(r.estimated_s, 2 * 3e-3 + 4e-3, 1e-12);
  EXPECT_DOUBLE_EQ(r.other_nodes_s, 0.5e-3);
  EXPECT_GE(r.in_model_timing_s, 0);
}

TEST(TuneTasks, WithoutCheckpointsTheEstimateIsTheSumAlone) {
  TwoTasks two;
  const tuner::TuneTasksResult r = tuner::tune_tasks(two.tasks, two.options(), nullptr);
  EXPECT_EQ(r.in_model_timings, 0);
  EXPECT_LT(r.other_nodes_s, 0);
  EXPECT_NEAR(r.estimated_s, 2 * 1e-3 + 4e-3, 1e-12);
}

// A task the build does not run (0 in the timing) keeps its scale; one far off is clamped.
TEST(TuneTasks, ATaskTheBuildDoesNotRunKeepsItsScaleAndNoiseIsClamped) {
  TwoTasks two;
  tuner::TuneTasksOptions o = two.options();
  o.in_model_checkpoints = 1;
  o.time_in_model = [] { return tuner::InModelTimes{{0, 40e-3}, {0, 4e-3}, 0}; };
  const tuner::TuneTasksResult r = tuner::tune_tasks(two.tasks, o, nullptr);
  EXPECT_EQ(r.in_model_timings, 1);
  EXPECT_DOUBLE_EQ(r.in_model_scale[0], 1);
  EXPECT_DOUBLE_EQ(r.in_model_scale[1], 4);
}

}  // namespace
}  // namespace tf

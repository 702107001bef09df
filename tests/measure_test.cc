// Measurement in a worker process: every outcome a candidate can have is classified, never fatal,
// and the worker is replaced after a crash or a hang. Kernels here are small C libraries built
// with the system compiler, so each misbehaves in exactly one way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "compiler/compiler.h"
#include "db/database.h"
#include "runtime/measure_worker.h"
#include "runtime/random_fill.h"
#include "tests/test_kernels.h"
#include "tuner/features.h"
#include "tuner/tune_job.h"
#include "tuner/xgb_model.h"

namespace tf {
namespace {

using test_kernels::add_setup;
using test_kernels::build_test_library;

runtime::MeasureOptions quick() { return test_kernels::quick_measure(4, 2); }

TEST(Measure, EveryOutcomeIsClassifiedAndTheWorkerSurvives) {
  const std::vector<uint8_t> lib = build_test_library();
  ASSERT_FALSE(lib.empty());
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(add_setup());

  auto ok = worker.measure(lib, "tf_ok", quick());
  EXPECT_EQ(ok.status, runtime::MeasureStatus::Ok) << ok.error;
  EXPECT_EQ(ok.costs.size(), 4u);
  EXPECT_GE(ok.number, 1);
  for (double c : ok.costs) EXPECT_GT(c, 0);

  auto wrong = worker.measure(lib, "tf_wrong", quick());
  EXPECT_EQ(wrong.status, runtime::MeasureStatus::WrongAnswer);
  EXPECT_NE(wrong.error.find("flat index 17"), std::string::npos) << wrong.error;

  auto error = worker.measure(lib, "tf_error", quick());
  EXPECT_EQ(error.status, runtime::MeasureStatus::RuntimeError);
  EXPECT_NE(error.error.find("returned 3"), std::string::npos) << error.error;

  const int restarts_before = worker.restarts();
  auto crash = worker.measure(lib, "tf_crash", quick());
  EXPECT_EQ(crash.status, runtime::MeasureStatus::RuntimeError);
  EXPECT_NE(crash.error.find("signal 11"), std::string::npos) << crash.error;

  auto hang = worker.measure(lib, "tf_hang", quick());
  EXPECT_EQ(hang.status, runtime::MeasureStatus::Timeout) << hang.error;

  auto missing = worker.measure(lib, "tf_no_such_kernel", quick());
  EXPECT_EQ(missing.status, runtime::MeasureStatus::LoadError);
  auto garbage = worker.measure(std::vector<uint8_t>(100, 7), "tf_ok", quick());
  EXPECT_EQ(garbage.status, runtime::MeasureStatus::LoadError);

  // A replacement worker, set up again, measures the next candidate normally.
  auto again = worker.measure(lib, "tf_ok", quick());
  EXPECT_EQ(again.status, runtime::MeasureStatus::Ok) << again.error;
  EXPECT_GE(worker.restarts(), restarts_before + 2);
}

// The db keeps one cost model per op and target; a conv whose loop nest gives rows of another
// length must retrain from the history, not hand the stored model rows it would misread (XGBoost
// refuses them, and the job died).
TEST(TuneJob, AStoredModelOfAnotherRowLengthIsRetrainedNotMisread) {
  const std::string path = "/tmp/tf-tune-job-model-test.db";
  std::remove(path.c_str());
  const auto target = codegen::host_target();
  compiler::Task task({"conv2d_nchwc", ops::parse_shape("conv2d_nchwc", "n=1,c=16,h=9,w=9,k=16,r=3,s=3,pad=1")},
                      target);
  const int width = static_cast<int>(tuner::candidate_features(task, task.space().default_config()).size());
  // A model of the job's op, target and feature version that reads rows of another length (written
  // by a build whose features had another layout): loading it must fail and the job retrain.
  tuner::XgbModel stray;
  const int stray_width = width + 3;
  std::vector<float> rows(static_cast<size_t>(stray_width) * 16), labels(16);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>((i * 7) % 13);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<float>(i) / 16.0f;
  stray.train(rows, stray_width, labels, 1);
  db::Database database(path);
  db::CostModel m;
  m.feature_version = tuner::kFeatureVersion;
  m.training_size = 16;
  m.bytes = stray.save();
  database.save_model(task.workload().op, task.target().str(), "local", m);
  tuner::TuneOptions opts;
  opts.tuner = "xgb";
  opts.trials = 24;
  opts.batch = 8;
  opts.worker_path = TF_MEASURE_WORKER;
  opts.measure = quick();
  auto r = tuner::tune(task, opts, &database, {});
  EXPECT_EQ(r.trials, 24);
  EXPECT_TRUE(r.best.has_value());
  const auto saved = database.load_model(task.workload().op, task.target().str(), "local", tuner::kFeatureVersion);
  ASSERT_TRUE(saved.has_value());
  tuner::XgbModel reread;
  EXPECT_NO_THROW(reread.load(saved->bytes, width)) << "the job saves a model of its own rows";
  std::remove(path.c_str());
}

// A job learns from the history of its op on its target and device, any shape (a 1x1 layer's
// records for a 3x3 one: their features mean the same), never from another op's or device's.
TEST(TuneJob, TransfersFromOtherShapesOfItsOpOnItsDeviceOnly) {
  const std::string path = "/tmp/tf-tune-job-transfer-test.db";
  std::remove(path.c_str());
  const auto target = codegen::host_target();
  auto task = [&](const std::string& op, const std::string& shape) {
    return std::make_unique<compiler::Task>(ops::Workload{op, ops::parse_shape(op, shape)}, target);
  };
  const auto one_by_one = task("conv2d_nchwc", "n=1,c=32,h=14,w=14,k=32,r=1,s=1,stride=2");
  const auto depthwise = task("depthwise_nchwc", "n=1,c=32,h=14,w=14,k=32,r=3,s=3,pad=1,groups=32");
  const auto three_by_three = task("conv2d_nchwc", "n=1,c=16,h=9,w=9,k=16,r=3,s=3,pad=1");
  db::Database database(path);
  auto run = [&](const compiler::Task& t, const std::string& tuner, int64_t trials, const std::string& device) {
    tuner::TuneOptions opts;
    opts.tuner = tuner;
    opts.trials = trials;
    opts.batch = 8;
    opts.device_key = device;
    opts.worker_path = TF_MEASURE_WORKER;
    opts.measure = quick();
    return tuner::tune(t, opts, &database, {});
  };
  run(*one_by_one, "random", 8, "local");
  run(*one_by_one, "random", 5, "board-a");  // another device key: not this job's history
  run(*depthwise, "random", 6, "local");     // another op
  const auto r = run(*three_by_three, "xgb", 8, "local");
  EXPECT_EQ(r.trials, 8);
  EXPECT_EQ(r.transfer.rfind("8 records of conv2d_nchwc from the db", 0), 0u) << r.transfer;
  std::remove(path.c_str());
}

TEST(TuneJob, RecordsEveryTrialAndFindsAPassingBest) {
  const std::string path = "/tmp/tf-tune-job-test.db";
  std::remove(path.c_str());
  compiler::Task task({"dense", {24, 40, 32}}, codegen::host_target());
  tuner::TuneOptions opts;
  opts.tuner = "random";
  opts.trials = 12;
  opts.batch = 5;
  opts.worker_path = TF_MEASURE_WORKER;
  opts.measure = quick();
  db::Database database(path);
  int progress_calls = 0;
  auto r = tuner::tune(task, opts, &database, [&](const tuner::Progress& p) {
    ++progress_calls;
    EXPECT_LE(p.trial, p.trials);
  });
  EXPECT_EQ(r.trials, 12);
  EXPECT_EQ(progress_calls, 12);
  EXPECT_EQ(r.ok, 12) << "every point of the space is correct";
  EXPECT_EQ(database.count_measurements(), 12);
  ASSERT_TRUE(r.best.has_value());
  auto best = database.best("dense", {24, 40, 32}, task.target().str());
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config_index, r.best->config_index);
  // The fastest few were measured again in a fresh worker and their timings appended.
  EXPECT_GE(r.confirmed, 3);
  size_t timings = 0;
  for (const auto& m : database.history("dense", {24, 40, 32}, task.target().str())) timings += m.costs.size();
  EXPECT_EQ(timings, static_cast<size_t>((12 + r.confirmed) * quick().repeat));
  ASSERT_EQ(r.best_curve.size(), 12u);
  for (size_t i = 1; i < r.best_curve.size(); ++i) EXPECT_GE(r.best_curve[i], r.best_curve[i - 1]);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tf

// Measurement in a worker process: every outcome a candidate can have is classified, never fatal,
// and the worker is replaced after a crash or a hang. Kernels here are small C libraries built
// with the system compiler, so each misbehaves in exactly one way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "compiler/compiler.h"
#include "db/database.h"
#include "runtime/measure_worker.h"
#include "runtime/random_fill.h"
#include "tuner/tune_job.h"

namespace tf {
namespace {

const char* kKernels = R"(
#include <stdint.h>
#include "runtime/kernel_abi.h"
static int check(const TFBuffer* a, int32_t n) {
  if (n != 3) return TF_ERR_NUM_ARGS;
  for (int i = 0; i < 3; ++i) if (a[i].ndim != 1 || a[i].shape[0] != 64) return TF_ERR_SHAPE;
  return TF_OK;
}
int32_t tf_ok(const TFBuffer* a, int32_t n) {
  int s = check(a, n); if (s) return s;
  const float *x = a[0].data, *y = a[1].data; float* z = a[2].data;
  for (int i = 0; i < 64; ++i) z[i] = x[i] + y[i];
  return TF_OK;
}
int32_t tf_wrong(const TFBuffer* a, int32_t n) {
  int s = tf_ok(a, n); ((float*)a[2].data)[17] += 1.0f; return s;
}
int32_t tf_crash(const TFBuffer* a, int32_t n) { volatile float* p = 0; *p = 1.0f; return TF_OK; }
int32_t tf_hang(const TFBuffer* a, int32_t n) { for (volatile int i = 0;; ) i = i; return TF_OK; }
int32_t tf_error(const TFBuffer* a, int32_t n) { return TF_ERR_SHAPE; }
)";

std::vector<uint8_t> build_test_library() {
  char dir[] = "/tmp/tf-measure-test-XXXXXX";
  EXPECT_NE(::mkdtemp(dir), nullptr);
  const std::string src = std::string(dir) + "/k.c", so = std::string(dir) + "/k.so";
  std::ofstream(src) << kKernels;
  const std::string cmd = "cc -shared -fPIC -O1 -I" + std::string(TF_SOURCE_DIR) + " -o " + so + " " + src + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(so, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::system(("rm -rf " + std::string(dir)).c_str());
  return bytes;
}

runtime::WorkloadSetup add_setup() {
  runtime::WorkloadSetup s;
  runtime::TensorSpec t;
  t.shape = {64};
  s.args = {t, t, t};
  s.num_inputs = 2;
  s.seed = 5;
  std::vector<float> x(64), y(64);
  runtime::fill_uniform(x.data(), 64, runtime::input_seed(5, 0));
  runtime::fill_uniform(y.data(), 64, runtime::input_seed(5, 1));
  for (int i = 0; i < 64; ++i) {
    s.expected.push_back(x[i] + y[i]);
    s.tolerance.push_back(1e-6f);
  }
  return s;
}

runtime::MeasureOptions quick() {
  runtime::MeasureOptions o;
  o.repeat = 4;
  o.min_repeat_ms = 1;
  o.timeout_s = 2;
  o.timing_lock = "/tmp/tunefarm-test-timing.lock";
  return o;
}

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
  ASSERT_EQ(r.best_curve.size(), 12u);
  for (size_t i = 1; i < r.best_curve.size(); ++i) EXPECT_GE(r.best_curve[i], r.best_curve[i - 1]);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tf

// The host-wide timing lock tells the truth and costs a kernel nothing: a lock that cannot be
// taken fails the candidate instead of timing it unlocked, and the wait for a lock held elsewhere
// does not count against the candidate's timeout. A worker's unusable timing is a failed trial.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "runtime/measure_worker.h"
#include "tests/test_kernels.h"

namespace tf {
namespace {

runtime::MeasureOptions quick(const std::string& lock) {
  runtime::MeasureOptions o;
  o.repeat = 2;
  o.min_repeat_ms = 1;
  o.timeout_s = 1;
  o.timing_lock = lock;
  return o;
}

TEST(TimingLock, ALockThatCannotBeOpenedFailsTheCandidateSayingSo) {
  const std::vector<uint8_t> lib = test_kernels::build_test_library();
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(test_kernels::add_setup());
  const std::string lock = "/nonexistent-tunefarm-dir/timing.lock";
  auto r = worker.measure(lib, "tf_ok", quick(lock));
  EXPECT_NE(r.status, runtime::MeasureStatus::Ok);
  EXPECT_TRUE(r.costs.empty());
  EXPECT_NE(r.error.find(lock), std::string::npos) << r.error;
  // Without a lock asked for, the same kernel is timed.
  auto unlocked = worker.measure(lib, "tf_ok", quick(""));
  EXPECT_EQ(unlocked.status, runtime::MeasureStatus::Ok) << unlocked.error;
}

TEST(TimingLock, WaitingForTheLockDoesNotCountAgainstTheTimeout) {
  const std::vector<uint8_t> lib = test_kernels::build_test_library();
  const std::string lock = testing::TempDir() + "tf-lock-wait-" + std::to_string(getpid()) + ".lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  // Another measurer holds the lock for three times the candidate's timeout, then lets go.
  std::thread holder([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    ::flock(fd, LOCK_UN);
  });
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(test_kernels::add_setup());
  const auto t0 = std::chrono::steady_clock::now();
  auto r = worker.measure(lib, "tf_ok", quick(lock));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  holder.join();
  ::close(fd);
  EXPECT_EQ(r.status, runtime::MeasureStatus::Ok) << r.error;
  EXPECT_GE(waited, 2.5) << "the kernel was timed while another process held the lock";
  // A kernel that hangs once it holds the lock still times out.
  auto hang = worker.measure(lib, "tf_hang", quick(lock));
  EXPECT_EQ(hang.status, runtime::MeasureStatus::Timeout) << hang.error;
}

TEST(WorkerResult, AnUnusableTimingIsAFailedTrial) {
  for (std::vector<double> costs : std::vector<std::vector<double>>{{NAN}, {INFINITY}, {0.0}, {-0.5}, {1e-15}, {}}) {
    runtime::MeasureResult sent;
    sent.status = runtime::MeasureStatus::Ok;
    sent.costs = costs;
    sent.number = 1;
    auto got = runtime::worker_protocol::decode_result(runtime::worker_protocol::encode_result(sent));
    EXPECT_EQ(got.status, runtime::MeasureStatus::RuntimeError) << (costs.empty() ? 0.0 : costs[0]);
    EXPECT_TRUE(got.costs.empty());
    EXPECT_NE(got.error.find("unusable timing"), std::string::npos) << got.error;
  }
  runtime::MeasureResult fine;
  fine.costs = {2e-6, 3e-6};
  EXPECT_EQ(runtime::worker_protocol::decode_result(runtime::worker_protocol::encode_result(fine)).status,
            runtime::MeasureStatus::Ok);
}

}  // namespace
}  // namespace tf

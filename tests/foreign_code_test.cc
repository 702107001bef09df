// Code the measure worker runs may be hostile (a Compare caller's library): it cannot outlive its
// call into another kernel's measurement, stop the parent's clock, hold the parent with a frame it
// never finishes or claims to be huge, or write into the parent's log.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "runtime/measure_worker.h"
#include "runtime/peak_flops.h"
#include "test_kernels.h"

namespace tf {
namespace {

using test_kernels::add_setup;
using test_kernels::build_test_library;
using Clock = std::chrono::steady_clock;

runtime::MeasureOptions quick() { return test_kernels::quick_measure(2, 5); }

std::vector<uint8_t> escaping_library() {
  return build_test_library(test_kernels::kEscapingKernels,
                            "-DTF_ESCAPE_FILE='\"/tmp/x\"' -DTF_ROOT_FILE='\"/tmp/y\"'");
}

std::vector<uint8_t> hijacking_library() {
  return build_test_library(test_kernels::kHijackingConstructor, "-DTF_OWN_REPEAT=2");
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

TEST(ForeignCode, ALibraryThatKeepsAnsweringThePipeNeverSeesAnotherKernel) {
  const std::vector<uint8_t> hijacker = hijacking_library(), kernels = build_test_library();
  // The control: in a worker it shares, the library answers for the next kernel (a wrong one)
  // with its forged 10 ns. This is what a worker of its own prevents.
  {
    runtime::MeasureWorker shared(TF_MEASURE_WORKER);
    shared.setup(add_setup());
    shared.measure(hijacker, "tf_ok", quick());
    const runtime::MeasureResult forged = shared.measure(kernels, "tf_wrong", quick());
    ASSERT_EQ(forged.status, runtime::MeasureStatus::Ok) << "the hijacking library no longer works: " << forged.error;
    ASSERT_EQ(forged.costs, std::vector<double>({1e-8, 1e-8}));
  }
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(add_setup());
  const runtime::MeasureResult own = worker.measure_foreign(hijacker, "tf_ok", quick());
  EXPECT_EQ(own.costs, std::vector<double>({1e-8, 1e-8})) << "a library may forge its own timing, and only that";
  const runtime::MeasureResult wrong = worker.measure(kernels, "tf_wrong", quick());
  EXPECT_EQ(wrong.status, runtime::MeasureStatus::WrongAnswer) << wrong.error;
  const runtime::MeasureResult ok = worker.measure(kernels, "tf_ok", quick());
  EXPECT_EQ(ok.status, runtime::MeasureStatus::Ok) << ok.error;
  EXPECT_GT(ok.costs.at(0), 1e-8);
  // Foreign libraries one after another never share a worker either.
  worker.measure_foreign(hijacker, "tf_ok", quick());
  EXPECT_EQ(worker.measure_foreign(kernels, "tf_wrong", quick()).status, runtime::MeasureStatus::WrongAnswer);
}

// Lock frames come before any kernel code runs; one after is a kernel stopping the parent's clock
// (before, the parent waited up to ten minutes for a lock nobody held).
TEST(ForeignCode, AKernelClaimingToWaitForTheLockEndsItsWorker) {
  runtime::MeasureWorker worker(TF_MEASURE_WORKER, {0}, 1);
  worker.setup(add_setup());
  const auto start = Clock::now();
  const runtime::MeasureResult r = worker.measure(escaping_library(), "tf_spin_unseen", quick());
  EXPECT_EQ(r.status, runtime::MeasureStatus::RuntimeError) << r.error;
  EXPECT_NE(r.error.find("broke its protocol"), std::string::npos) << r.error;
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(worker.measure(build_test_library(), "tf_ok", quick()).status, runtime::MeasureStatus::Ok);
}

TEST(ForeignCode, AFrameClaimingAGigabyteIsRefusedUnread) {
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(add_setup());
  const auto start = Clock::now();
  const runtime::MeasureResult r = worker.measure(escaping_library(), "tf_giant_frame", quick());
  EXPECT_EQ(r.status, runtime::MeasureStatus::RuntimeError) << r.error;
  EXPECT_NE(r.error.find("larger than any result"), std::string::npos) << r.error;
  EXPECT_LT(seconds_since(start), 5.0);
}

TEST(ForeignCode, AFrameLeftUnfinishedTimesOut) {
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(add_setup());
  runtime::MeasureOptions o = quick();
  o.timeout_s = 1;
  const auto start = Clock::now();
  const runtime::MeasureResult r = worker.measure(escaping_library(), "tf_stalled_frame", o);
  EXPECT_EQ(r.status, runtime::MeasureStatus::Timeout) << r.error;
  EXPECT_LT(seconds_since(start), 10.0);
}

// The worker's stderr is a pipe of the parent's, not the parent's own stderr (a board's log): what
// a kernel writes there is read back, bounded and escaped, into its trial's error.
TEST(ForeignCode, WhatAKernelWritesToStderrStaysOutOfTheParentsLog) {
  const std::string log = "/tmp/tf-foreign-stderr-" + std::to_string(::getpid());
  const int saved = ::dup(STDERR_FILENO);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ::write(fd, "the board's log\n", 16);
  ::dup2(fd, STDERR_FILENO);
  runtime::MeasureResult r;
  {
    runtime::MeasureWorker worker(TF_MEASURE_WORKER);
    worker.setup(add_setup());
    r = worker.measure(escaping_library(), "tf_scribble", quick());
  }
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fd);
  std::stringstream text;
  text << std::ifstream(log).rdbuf();
  ::unlink(log.c_str());
  EXPECT_EQ(text.str(), "the board's log\n");
  EXPECT_EQ(r.status, runtime::MeasureStatus::RuntimeError) << r.error;
  EXPECT_NE(r.error.find("the worker wrote: \\x1b[2J\\x0dscribbled"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find('\x1b'), std::string::npos) << "control characters reach the error unescaped";
}

TEST(ForeignCode, TheMachinesPeakIsMeasured) {
  const double peak = runtime::measure_peak_gflops(0, "/tmp/tunefarm-test-timing.lock");
  // One thread of any machine this runs on does more than 1 and less than 10,000 GFLOPS.
  EXPECT_GT(peak, 1.0);
  EXPECT_LT(peak, 1e4);
}

}  // namespace
}  // namespace tf

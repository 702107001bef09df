// TimingCores: a local job's builders leave the timed kernel's CPUs while it is timed, mid-build,
// and have every CPU back after it.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/thread_pool.h"
#include "tuner/timing_cores.h"

namespace tf::tuner {
namespace {

std::vector<int> cpus_of(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(tid, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

TEST(TimingCores, TheKernelGetsTheLastCpusAndTheBuildersTheRest) {
  EXPECT_TRUE(TimingCores({0}, 1).takes_turns());
  EXPECT_TRUE(TimingCores({0, 1}, 2).takes_turns());
  EXPECT_TRUE(TimingCores({0, 1}, 2).kernel_cpus().empty());
  EXPECT_FALSE(TimingCores({0, 1}, 1).takes_turns());
  TimingCores cores({0, 2, 5, 7}, 1);
  EXPECT_EQ(cores.kernel_cpus(), (std::vector<int>{7}));
  EXPECT_EQ(cores.free_cpus(), (std::vector<int>{0, 2, 5}));
  TimingCores two({0, 2, 5, 7}, 2);
  EXPECT_EQ(two.kernel_cpus(), (std::vector<int>{5, 7}));
}

TEST(TimingCores, ARunningBuilderLeavesTheKernelCpusWhileATimingRunsAndComesBack) {
  const std::vector<int> all = runtime::usable_cpus();
  if (all.size() < 2) GTEST_SKIP() << "needs two CPUs";
  TimingCores cores(all, 1);
  std::atomic<pid_t> tid{0};
  std::atomic<bool> stop{false};
  std::thread builder([&] {
    cores.add_builder();
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    volatile uint64_t spin = 0;  // a build in progress: busy, never asking for its turn
    while (!stop) ++spin;
    cores.remove_builder();
  });
  while (tid == 0) std::this_thread::yield();
  EXPECT_EQ(cpus_of(tid), all);
  {
    TimingTurn timing(&cores);
    EXPECT_EQ(cpus_of(tid), cores.free_cpus());
    {
      TimingTurn nested(&cores);  // a second measurer of the job: still confined
      EXPECT_EQ(cpus_of(tid), cores.free_cpus());
    }
    EXPECT_EQ(cpus_of(tid), cores.free_cpus());
  }
  EXPECT_EQ(cpus_of(tid), all);
  // A builder that starts during a timing starts confined.
  std::vector<int> late_cpus;
  {
    TimingTurn timing(&cores);
    std::thread late([&] {
      cores.add_builder();
      late_cpus = runtime::usable_cpus();
      cores.remove_builder();
    });
    late.join();
  }
  EXPECT_EQ(late_cpus, cores.free_cpus());
  stop = true;
  builder.join();
}

// When the kernel needs every CPU: a timing waits for the build in progress, and a build asked for
// while a timing waits starts only after it, however many builds keep coming.
TEST(TimingCores, TakingTurnsATimingWaitsForTheBuildInProgressAndNoBuildOvertakesIt) {
  TimingCores cores({0, 1}, 2);
  ASSERT_TRUE(cores.takes_turns());
  std::mutex mu;
  std::vector<std::string> events;
  auto note = [&](const std::string& e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(e);
  };
  std::atomic<bool> building{false}, release_build{false};
  std::thread first([&] {
    BuildTurn turn(&cores);
    building = true;
    while (!release_build) std::this_thread::yield();
    note("first build ends");
  });
  while (!building) std::this_thread::yield();
  std::thread timing([&] {
    TimingTurn turn(&cores);
    note("timing runs");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    note("timing ends");
  });
  while (cores.timings() == 0) std::this_thread::yield();  // the timing is waiting now
  std::thread second([&] {
    BuildTurn turn(&cores);
    note("second build runs");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  release_build = true;
  first.join();
  timing.join();
  second.join();
  EXPECT_EQ(events, (std::vector<std::string>{"first build ends", "timing runs", "timing ends", "second build runs"}));
}

}  // namespace
}  // namespace tf::tuner

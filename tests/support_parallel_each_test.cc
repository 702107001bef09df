// support/parallel_each.h: every index once, on several threads, and a failure reported as the
// lowest failing index's exception.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/parallel_each.h"

namespace tf {
namespace {

TEST(ParallelEach, CallsEveryIndexOnce) {
  for (size_t workers : {1, 2, 7}) {
    for (size_t n : {0, 1, 3, 100}) {
      std::vector<std::atomic<int>> calls(n);
      parallel_each(n, workers, [&](size_t i) { calls[i]++; });
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(calls[i].load(), 1) << "index " << i << " of " << n;
    }
  }
}

TEST(ParallelEach, SpreadsTheCallsOverThreads) {
  std::mutex m;
  std::set<std::thread::id> threads;
  std::atomic<int> started{0};
  // Each of the two calls waits for the other to start: done on one thread, this would hang, so it
  // gives up after ten seconds (far past a thread's start on a busy machine) and the assertion
  // below reports it.
  parallel_each(2, 2, [&](size_t) {
    started++;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(m);
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(threads.size(), 2u);
}

TEST(ParallelEach, RethrowsTheLowestFailingIndexAndStartsNoMore) {
  std::atomic<int> calls{0};
  try {
    parallel_each(10, 1, [&](size_t i) {
      calls++;
      if (i >= 3) throw std::runtime_error("index " + std::to_string(i));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 3");
  }
  EXPECT_EQ(calls.load(), 4);
  // On several threads every failing index may be under way at once: the lowest is reported.
  try {
    parallel_each(64, 4, [&](size_t i) {
      if (i % 2 == 1) throw std::runtime_error("index " + std::to_string(i));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 1");
  }
}

TEST(ParallelEach, HardwareWorkersStaysWithinItsCap) {
  EXPECT_GE(hardware_workers(8), 1u);
  EXPECT_LE(hardware_workers(8), 8u);
  EXPECT_EQ(hardware_workers(1), 1u);
  EXPECT_EQ(hardware_workers(0), 1u);
}

}  // namespace
}  // namespace tf

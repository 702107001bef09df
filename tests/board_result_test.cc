// A board's result is checked where it enters the tracker: a NaN, infinite, zero, negative,
// absurdly small or missing cost of an "ok" result, timings that do not match what was asked, and a
// speed past what the board's measured FMA peak allows become a failed trial naming the board.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <mutex>

#include "tracker/dispatcher.h"

namespace tf::tracker {
namespace {

struct Inbox {
  std::mutex mu;
  std::deque<v1::WorkItem> items;
  BoardLink link() {
    BoardLink l;
    l.send = [this](const v1::TrackerMessage& m) {
      std::lock_guard<std::mutex> lock(mu);
      if (m.has_work()) items.push_back(m.work());
      return true;
    };
    l.disconnect = [] {};
    return l;
  }
  uint64_t next_id() {
    std::lock_guard<std::mutex> lock(mu);
    if (items.empty()) return 0;
    const uint64_t id = items.front().item_id();
    items.pop_front();
    return id;
  }
};

TEST(BoardResult, AnUnusableTimingIsAFailedTrialNamingTheBoard) {
  Dispatcher d(DispatcherOptions{1, 3});
  Inbox board;
  v1::BoardInfo info;
  info.set_device_key("k");
  info.set_hostname("rack7");
  info.set_pid(41);
  info.set_threads(1);
  d.add_board("b1", info, "llvm", "peer", board.link());
  auto ref = std::make_shared<v1::Reference>();
  ref->set_reference_id(1);
  for (std::vector<double> costs :
       std::vector<std::vector<double>>{{NAN}, {INFINITY}, {0.0}, {-0.5}, {1e-15}, {}, {2e-3, 2e-3, 2e-3}}) {
    auto future = d.submit(1, 1, "k", ref, v1::WorkItem());
    const uint64_t id = board.next_id();
    ASSERT_NE(id, 0u);
    v1::WorkResult r;
    r.set_item_id(id);
    r.set_status(v1::MEASURE_OK);
    for (double c : costs) r.add_costs(c);
    r.set_number(1);
    d.on_result("b1", r);
    ASSERT_EQ(future.wait_for(std::chrono::seconds(1)), std::future_status::ready);
    tuner::Measured m = future.get();
    if (costs.size() == 3) {  // the default repeat
      EXPECT_EQ(m.result.status, runtime::MeasureStatus::Ok) << m.result.error;
      continue;
    }
    EXPECT_EQ(m.result.status, runtime::MeasureStatus::RuntimeError) << (costs.empty() ? 0.0 : costs[0]);
    EXPECT_TRUE(m.result.costs.empty());
    EXPECT_NE(m.result.error.find("rack7:41"), std::string::npos) << m.result.error;
  }
  d.shutdown();
}

// One item of `flops` work per run, asked with `repeat` and `number`, answered with `r`.
tuner::Measured answer(Dispatcher& d, Inbox& board, v1::WorkResult r, double flops = 0, int repeat = 2,
                       int number = 0) {
  auto ref = std::make_shared<v1::Reference>();
  ref->set_reference_id(1);
  v1::WorkItem item;
  item.mutable_measure()->set_repeat(repeat);
  item.mutable_measure()->set_number(number);
  ItemTerms terms;
  terms.flops = flops;
  auto future = d.submit(1, 1, "k", ref, item, terms);
  r.set_item_id(board.next_id());
  r.set_status(v1::MEASURE_OK);
  d.on_result("b1", r);
  EXPECT_EQ(future.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  return future.get();
}

v1::WorkResult timings(std::vector<double> costs, int number) {
  v1::WorkResult r;
  for (double c : costs) r.add_costs(c);
  r.set_number(number);
  return r;
}

TEST(BoardResult, TimingsThatDoNotMatchTheRequestAreRefused) {
  Dispatcher d(DispatcherOptions{1, 3});
  Inbox board;
  v1::BoardInfo info;
  info.set_device_key("k");
  info.set_hostname("rack7");
  info.set_pid(41);
  d.add_board("b1", info, "llvm", "peer", board.link());
  EXPECT_EQ(answer(d, board, timings({1e-3, 1e-3}, 100)).result.status, runtime::MeasureStatus::Ok);
  for (const auto& [r, why] : std::vector<std::pair<v1::WorkResult, std::string>>{
           {timings({1e-3, 1e-3}, 0), "number (runs per timing) 0"},
           {timings({1e-3, 1e-3}, -5), "number (runs per timing) -5"},
           {timings({1e-3, 1e-3}, runtime::kMaxNumber + 1), "out of range"},
           {timings({1e-3}, 100), "1 timings for 2 repeats"},
           {timings({1e-3, 1e-3, 1e-3}, 100), "3 timings for 2 repeats"}}) {
    const tuner::Measured m = answer(d, board, r);
    EXPECT_EQ(m.result.status, runtime::MeasureStatus::RuntimeError) << why;
    EXPECT_NE(m.result.error.find(why), std::string::npos) << m.result.error;
    EXPECT_NE(m.result.error.find("rack7:41"), std::string::npos) << m.result.error;
  }
  // A number of runs per timing asked for is the one a result must have run.
  EXPECT_EQ(answer(d, board, timings({1e-3, 1e-3}, 7), 0, 2, 7).result.status, runtime::MeasureStatus::Ok);
  EXPECT_NE(answer(d, board, timings({1e-3, 1e-3}, 8), 0, 2, 7).result.error.find("where 7 was asked"),
            std::string::npos);
  d.shutdown();
}

// What a hijacked worker stored: 1 ns for a 2 GFLOP kernel, i.e. 2,000,000 GFLOPS on a board
// whose FMA units reach 100 GFLOPS.
TEST(BoardResult, ASpeedNoMachineCanReachIsRefused) {
  Dispatcher d(DispatcherOptions{1, 3});
  Inbox board;
  v1::BoardInfo info;
  info.set_device_key("k");
  info.set_hostname("rack7");
  info.set_pid(41);
  info.set_peak_gflops(100);
  d.add_board("b1", info, "llvm", "peer", board.link());
  const double flops = 2e9;
  // 20 ms is 100 GFLOPS; 4 ms is 5x the peak, which a kernel doing fewer multiplies may show.
  EXPECT_EQ(answer(d, board, timings({2e-2, 2e-2}, 1), flops).result.status, runtime::MeasureStatus::Ok);
  EXPECT_EQ(answer(d, board, timings({4e-3, 5e-3}, 1), flops).result.status, runtime::MeasureStatus::Ok);
  for (double s : {1e-9, 1e-6, 2e-3}) {
    const tuner::Measured m = answer(d, board, timings({2e-2, s}, 1), flops);
    EXPECT_EQ(m.result.status, runtime::MeasureStatus::RuntimeError) << s;
    EXPECT_NE(m.result.error.find("FMA peak of 100 GFLOPS"), std::string::npos) << m.result.error;
    EXPECT_NE(m.result.error.find("rack7:41"), std::string::npos) << m.result.error;
  }
  // Unknown work or an unmeasured peak leaves the 1 ns floor as the only bound.
  EXPECT_EQ(answer(d, board, timings({2e-9, 2e-9}, 1), 0).result.status, runtime::MeasureStatus::Ok);
  d.shutdown();
}

}  // namespace
}  // namespace tf::tracker

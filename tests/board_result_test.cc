// A board's result is checked where it enters the tracker: a NaN, infinite, zero, negative,
// absurdly small or missing cost of an "ok" result becomes a failed trial naming the board.
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
  for (std::vector<double> costs : std::vector<std::vector<double>>{{NAN}, {INFINITY}, {0.0}, {-0.5}, {1e-15}, {}, {2e-3}}) {
    auto future = d.submit(1, 1, "k", ref, v1::WorkItem());
    const uint64_t id = board.next_id();
    ASSERT_NE(id, 0u);
    v1::WorkResult r;
    r.set_item_id(id);
    r.set_status(v1::MEASURE_OK);
    for (double c : costs) r.add_costs(c);
    d.on_result("b1", r);
    ASSERT_EQ(future.wait_for(std::chrono::seconds(1)), std::future_status::ready);
    tuner::Measured m = future.get();
    if (costs == std::vector<double>{2e-3}) {
      EXPECT_EQ(m.result.status, runtime::MeasureStatus::Ok) << m.result.error;
      continue;
    }
    EXPECT_EQ(m.result.status, runtime::MeasureStatus::RuntimeError) << (costs.empty() ? 0.0 : costs[0]);
    EXPECT_TRUE(m.result.costs.empty());
    EXPECT_NE(m.result.error.find("rack7:41"), std::string::npos) << m.result.error;
  }
  d.shutdown();
}

}  // namespace
}  // namespace tf::tracker

// The dispatcher on its own, with boards that are callbacks: jobs on one key share its boards in
// the ratio of their priorities; a board that goes silent is disconnected; a lost board's items go
// to another board; a result for an item given away is dropped.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "support/subprocess.h"
#include "tracker/dispatcher.h"

namespace tf::tracker {
namespace {

// A board that keeps what it is sent.
struct FakeBoard {
  std::mutex mu;
  std::deque<v1::TrackerMessage> inbox;
  bool disconnected = false;

  BoardLink link() {
    BoardLink l;
    l.send = [this](const v1::TrackerMessage& m) {
      std::lock_guard<std::mutex> lock(mu);
      inbox.push_back(m);
      return true;
    };
    l.disconnect = [this] {
      std::lock_guard<std::mutex> lock(mu);
      disconnected = true;
    };
    return l;
  }
  // The next work item sent, if any (references are skipped).
  std::optional<v1::WorkItem> next_item() {
    std::lock_guard<std::mutex> lock(mu);
    while (!inbox.empty()) {
      v1::TrackerMessage m = inbox.front();
      inbox.pop_front();
      if (m.has_work()) return m.work();
    }
    return std::nullopt;
  }
};

v1::BoardInfo board_info(const std::string& key, int pid) {
  v1::BoardInfo info;
  info.set_device_key(key);
  info.set_hostname("testhost");
  info.set_pid(pid);
  info.set_threads(1);
  return info;
}

std::shared_ptr<const v1::Reference> reference(uint64_t id) {
  auto r = std::make_shared<v1::Reference>();
  r->set_reference_id(id);
  return r;
}

v1::WorkResult ok_result(uint64_t item_id) {
  v1::WorkResult r;
  r.set_item_id(item_id);
  r.set_status(v1::MEASURE_OK);
  for (int i = 0; i < 3; ++i) r.add_costs(1e-3);  // the default repeat
  r.set_number(1);
  return r;
}

TEST(Dispatcher, JobsShareABoardInTheRatioOfTheirPriorities) {
  Dispatcher d(DispatcherOptions{1, 3});
  FakeBoard board;
  d.add_board("b1", board_info("k", 1), "llvm", "peer", board.link());
  std::map<uint64_t, int64_t> job_of_item;
  std::vector<std::future<tuner::Measured>> results;
  auto ref = reference(1);
  for (int i = 0; i < 60; ++i) {
    results.push_back(d.submit(1, 1, "k", ref, v1::WorkItem()));
    results.push_back(d.submit(2, 3, "k", ref, v1::WorkItem()));
  }
  // The board measures one item at a time; count whose items it gets among the first 40.
  std::map<int64_t, int> served;
  for (int n = 0; n < 40; ++n) {
    auto item = board.next_item();
    ASSERT_TRUE(item.has_value()) << "after " << n;
    // Items were submitted alternately, job 1 first: odd ids are job 1's.
    ++served[item->item_id() % 2 == 1 ? 1 : 2];
    d.on_result("b1", ok_result(item->item_id()));
  }
  EXPECT_NEAR(served[2] / static_cast<double>(served[1]), 3.0, 0.5) << served[1] << " vs " << served[2];
  d.shutdown();
}

TEST(Dispatcher, ALostBoardsItemsGoToAnotherAndLateResultsAreDropped) {
  Dispatcher d(DispatcherOptions{1, 3});
  FakeBoard first, second;
  d.add_board("b1", board_info("k", 1), "llvm", "peer", first.link());
  auto result = d.submit(7, 1, "k", reference(1), v1::WorkItem());
  auto item = first.next_item();
  ASSERT_TRUE(item.has_value());
  d.add_board("b2", board_info("k", 2), "llvm", "peer", second.link());
  d.remove_board("b1", "test");
  auto again = second.next_item();
  ASSERT_TRUE(again.has_value()) << "the item moved to the other board";
  EXPECT_EQ(again->item_id(), item->item_id());
  d.on_result("b1", ok_result(item->item_id()));  // the lost board's late answer: dropped
  EXPECT_EQ(result.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  d.on_result("b2", ok_result(item->item_id()));
  ASSERT_EQ(result.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  tuner::Measured m = result.get();
  EXPECT_EQ(m.result.status, runtime::MeasureStatus::Ok);
  EXPECT_EQ(m.device, "testhost:2");
  d.shutdown();
}

TEST(Dispatcher, SilentBoardsAreDisconnectedAndCancelledJobsAnswerAtOnce) {
  Dispatcher d;
  FakeBoard board;
  d.add_board("b1", board_info("k", 1), "llvm", "peer", board.link());
  d.disconnect_silent_boards(std::chrono::milliseconds(60000));
  EXPECT_FALSE(board.disconnected);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  d.disconnect_silent_boards(std::chrono::milliseconds(10));
  EXPECT_TRUE(board.disconnected);

  auto queued = d.submit(3, 1, "other-key", reference(2), v1::WorkItem());
  d.cancel_job(3);
  ASSERT_EQ(queued.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_TRUE(queued.get().cancelled);
  d.shutdown();
}

TEST(Dispatcher, AnItemBoundToABoardWaitsForItAndFailsWhenItLeaves) {
  Dispatcher d(DispatcherOptions{1, 3});  // one item in flight per board
  FakeBoard a, b;
  auto ref = reference(1);
  d.add_board("a", board_info("k", 1), "llvm", "peer", a.link());  // device testhost:1
  auto x = d.submit(1, 1, "k", ref, v1::WorkItem());
  auto x_item = a.next_item();
  ASSERT_TRUE(x_item.has_value());
  d.add_board("b", board_info("k", 2), "llvm", "peer", b.link());  // device testhost:2, idle
  // Bound to the busy board: it waits for that board and never goes to the idle one.
  auto y = d.submit(7, 100, "k", ref, v1::WorkItem(), ItemTerms{"testhost:1"});
  EXPECT_FALSE(b.next_item().has_value()) << "an item bound to testhost:1 went to testhost:2";
  d.on_result("a", ok_result(x_item->item_id()));
  EXPECT_EQ(x.get().device, "testhost:1");
  auto y_item = a.next_item();
  ASSERT_TRUE(y_item.has_value());
  // Queued behind it for the same board, then that board leaves: both fail, neither moves to b.
  auto w = d.submit(7, 100, "k", ref, v1::WorkItem(), ItemTerms{"testhost:1"});
  d.remove_board("a", "stream ended");
  for (auto* f : {&y, &w}) {
    ASSERT_EQ(f->wait_for(std::chrono::seconds(1)), std::future_status::ready);
    const tuner::Measured m = f->get();
    EXPECT_TRUE(m.board_lost);
    EXPECT_NE(m.result.error.find("testhost:1"), std::string::npos) << m.result.error;
  }
  EXPECT_FALSE(b.next_item().has_value());
  // Bound to a board that is not connected: fails at once.
  auto nowhere = d.submit(7, 100, "k", ref, v1::WorkItem(), ItemTerms{"otherhost:9"});
  ASSERT_EQ(nowhere.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_TRUE(nowhere.get().board_lost);
  // Unbound work still flows to the board that is left.
  auto z = d.submit(1, 1, "k", ref, v1::WorkItem());
  EXPECT_TRUE(b.next_item().has_value());
}

TEST(Dispatcher, ACancelledJobsSlotGoesToTheNextJobOnceTheBoardAnswers) {
  Dispatcher d(DispatcherOptions{1, 3});  // one item in flight per board
  FakeBoard board;
  auto ref = reference(1);
  d.add_board("b1", board_info("k", 1), "llvm", "peer", board.link());
  auto doomed = d.submit(1, 1, "k", ref, v1::WorkItem());
  auto doomed_item = board.next_item();
  ASSERT_TRUE(doomed_item.has_value());
  auto waiting = d.submit(2, 1, "k", ref, v1::WorkItem());
  EXPECT_FALSE(board.next_item().has_value()) << "the board's one slot is taken";
  d.cancel_job(1);
  ASSERT_EQ(doomed.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_TRUE(doomed.get().cancelled);
  // The board was still measuring the cancelled item; its late answer frees the slot for job 2.
  d.on_result("b1", ok_result(doomed_item->item_id()));
  auto next = board.next_item();
  ASSERT_TRUE(next.has_value()) << "job 2 stalled behind the cancelled job";
  d.on_result("b1", ok_result(next->item_id()));
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_EQ(waiting.get().result.status, runtime::MeasureStatus::Ok);
}

v1::WorkItem item_with_timeout(double timeout_s) {
  v1::WorkItem w;
  w.mutable_measure()->set_timeout_s(timeout_s);
  return w;
}

TEST(Dispatcher, ABoardThatHeartbeatsButNeverAnswersIsDroppedAndItsItemMoves) {
  Dispatcher d(DispatcherOptions{2, 3, std::chrono::milliseconds(100)});
  FakeBoard silent, good;
  auto ref = reference(1);
  d.add_board("silent", board_info("k", 1), "llvm", "peer", silent.link());
  auto result = d.submit(1, 1, "k", ref, item_with_timeout(0.05));  // deadline: 2 x 50 ms + 100 ms
  auto held = silent.next_item();
  ASSERT_TRUE(held.has_value());
  d.add_board("good", board_info("k", 2), "llvm", "peer", good.link());
  EXPECT_TRUE(d.drop_boards_with_overdue_items().empty()) << "dropped before the deadline";
  std::optional<v1::WorkItem> moved;
  ASSERT_TRUE(poll_until(
      [&] {
        d.on_heartbeat("silent", v1::Heartbeat());  // alive, but it never answers
        d.drop_boards_with_overdue_items();
        moved = good.next_item();
        return moved.has_value();
      },
      std::chrono::seconds(10)))
      << "the item never left the silent board";
  EXPECT_EQ(moved->item_id(), held->item_id());
  {
    std::lock_guard<std::mutex> lock(silent.mu);
    EXPECT_TRUE(silent.disconnected) << "the silent board's stream stays open";
  }
  EXPECT_EQ(d.devices("k").size(), 1u);
  d.on_result("silent", ok_result(held->item_id()));  // too late: dropped
  EXPECT_EQ(result.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  d.on_result("good", ok_result(moved->item_id()));
  ASSERT_EQ(result.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_EQ(result.get().device, "testhost:2");
}

TEST(Dispatcher, AnItemsDeadlineCountsFromTheItemAheadOfItOnItsBoard) {
  Dispatcher d(DispatcherOptions{2, 3, std::chrono::milliseconds(0)});
  FakeBoard board;
  d.add_board("b1", board_info("k", 1), "llvm", "peer", board.link());
  auto ref = reference(1);
  auto first = d.submit(1, 1, "k", ref, item_with_timeout(1800));
  auto second = d.submit(1, 1, "k", ref, item_with_timeout(1800));
  ASSERT_TRUE(board.next_item().has_value());
  ASSERT_TRUE(board.next_item().has_value());
  EXPECT_TRUE(d.drop_boards_with_overdue_items().empty()) << "a long time limit is honoured";
  EXPECT_EQ(d.devices("k").size(), 1u);
}

// A client's library waits for a board that confines kernels. The request was checked while one
// was connected; the board that registers after it left runs --no-sandbox and must not get it.
TEST(Dispatcher, AClientsLibraryGoesOnlyToABoardThatConfinesKernels) {
  Dispatcher d(DispatcherOptions{1, 3});
  FakeBoard confined, open;
  auto ref = reference(1);
  v1::BoardInfo sandboxed = board_info("k", 1);
  sandboxed.set_sandboxed(true);
  d.add_board("s", sandboxed, "llvm", "peer", confined.link());
  // The sandboxed board is busy with a tuning item, so the client's item queues.
  auto tuning = d.submit(1, 1, "k", ref, v1::WorkItem());
  ASSERT_TRUE(confined.next_item().has_value());
  ItemTerms client;
  client.needs_sandbox = true;
  auto compare = d.submit(-1, 100, "k", ref, v1::WorkItem(), client);
  d.remove_board("s", "killed");
  ASSERT_EQ(compare.wait_for(std::chrono::seconds(1)), std::future_status::ready)
      << "the item waits for no board that can take it";
  const tuner::Measured m = compare.get();
  EXPECT_EQ(m.result.status, runtime::MeasureStatus::RuntimeError);
  EXPECT_NE(m.result.error.find("confines kernels"), std::string::npos) << m.result.error;
  d.add_board("o", board_info("k", 2), "llvm", "peer", open.link());
  auto item = open.next_item();
  ASSERT_TRUE(item.has_value()) << "the tuning item moves on to the unsandboxed board";
  EXPECT_FALSE(open.next_item().has_value()) << "the client's library reached a board without a sandbox";

  // With only an unsandboxed board of the key connected, a client's item is refused at once...
  auto refused = d.submit(-2, 100, "k", ref, v1::WorkItem(), client);
  ASSERT_EQ(refused.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_NE(refused.get().result.error.find("confines kernels"), std::string::npos);
  EXPECT_FALSE(open.next_item().has_value());
  // ...and an item that may go anywhere (an admin's) still goes to it.
  d.on_result("o", ok_result(item->item_id()));
  auto admins = d.submit(-3, 100, "k", ref, v1::WorkItem());
  EXPECT_TRUE(open.next_item().has_value());
  d.shutdown();
}

}  // namespace
}  // namespace tf::tracker

// The board daemon against a tracker the test plays itself (the real Boards service contract, in
// this process): kernels that crash, hang or compute wrongly are recorded outcomes and the board
// keeps serving; on SIGTERM it finishes what it holds, says it is draining, and exits 0.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "proto/measure_wire.h"
#include "tests/fleet_harness.h"
#include "tests/test_kernels.h"

namespace tf::fleet_test {
namespace {

// Sends the work items it is given to the first board that connects and collects its results.
class ScriptedTracker final : public v1::Boards::Service {
 public:
  explicit ScriptedTracker(std::vector<v1::WorkItem> items) : items_(std::move(items)) {}

  grpc::Status Connect(grpc::ServerContext* ctx,
                       grpc::ServerReaderWriter<v1::TrackerMessage, v1::BoardMessage>* stream) override {
    v1::BoardMessage msg;
    if (!stream->Read(&msg) || !msg.has_register_())
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "register first");
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (connected_) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "one board only");
      connected_ = true;
      info_ = msg.register_().info();
    }
    v1::TrackerMessage out;
    out.mutable_registered()->set_board_id("scripted#1");
    stream->Write(out);
    out.Clear();
    *out.mutable_reference() = fleet::to_wire(test_kernels::add_setup(), 1);
    stream->Write(out);
    for (const auto& item : items_) {
      out.Clear();
      *out.mutable_work() = item;
      stream->Write(out);
    }
    while (stream->Read(&msg)) {
      std::lock_guard<std::mutex> lock(mu_);
      if (msg.has_result()) results_.push_back(msg.result());
      if (msg.has_heartbeat() && msg.heartbeat().draining()) saw_draining_ = true;
      if (msg.has_heartbeat() && msg.heartbeat().queued() > 0) saw_held_ = true;
      changed_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu_);
    stream_ended_ = true;
    changed_.notify_all();
    return grpc::Status::OK;
  }

  bool wait_results(size_t n, std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, timeout, [&] { return results_.size() >= n; });
  }
  // Until a heartbeat says the board holds an item (received, not yet reported).
  bool wait_held(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, timeout, [&] { return saw_held_; });
  }
  bool wait_stream_end(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, timeout, [&] { return stream_ended_; });
  }
  std::vector<v1::WorkResult> results() {
    std::lock_guard<std::mutex> lock(mu_);
    return results_;
  }
  bool saw_draining() {
    std::lock_guard<std::mutex> lock(mu_);
    return saw_draining_;
  }
  v1::BoardInfo info() {
    std::lock_guard<std::mutex> lock(mu_);
    return info_;
  }

 private:
  std::vector<v1::WorkItem> items_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool connected_ = false, stream_ended_ = false, saw_draining_ = false, saw_held_ = false;
  v1::BoardInfo info_;
  std::vector<v1::WorkResult> results_;
};

v1::WorkItem item(uint64_t id, const std::vector<uint8_t>& lib, const std::string& entry, double min_repeat_ms = 1,
                  double timeout_s = 1) {
  v1::WorkItem w;
  w.set_item_id(id);
  w.set_reference_id(1);
  w.set_library(std::string(lib.begin(), lib.end()));
  w.set_entry_symbol(entry);
  for (const auto& a : test_kernels::add_setup().args) *w.add_args() = fleet::to_wire(a);
  w.mutable_measure()->set_repeat(3);
  w.mutable_measure()->set_min_repeat_ms(min_repeat_ms);
  w.mutable_measure()->set_timeout_s(timeout_s);
  return w;
}

struct Server {
  explicit Server(ScriptedTracker& service) {
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    b.RegisterService(&service);
    server = b.BuildAndStart();
  }
  ~Server() { server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1)); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
  int port = 0;
  std::unique_ptr<grpc::Server> server;
};

Process start_board(const std::string& address, const std::string& log) {
  return Process({TF_RPC_SERVER, "--tracker", address, "--key", "scripted", "--threads", "1", "--timing-lock",
                  "/tmp/tunefarm-test-timing.lock"},
                 log);
}

TEST(FleetBoard, CrashingHangingAndWrongKernelsAreOutcomesAndTheBoardServesOn) {
  const std::vector<uint8_t> lib = test_kernels::build_test_library();
  ASSERT_FALSE(lib.empty());
  ScriptedTracker tracker({item(1, lib, "tf_crash"), item(2, lib, "tf_hang"), item(3, lib, "tf_wrong"),
                           item(4, lib, "tf_ok"), item(5, lib, "tf_no_such_symbol")});
  Server server(tracker);
  const std::string log = "/tmp/tf-board-test-" + std::to_string(::getpid()) + ".log";
  Process board = start_board(server.address(), log);
  ASSERT_TRUE(tracker.wait_results(5, std::chrono::seconds(60))) << board.output();
  auto results = tracker.results();
  std::map<uint64_t, v1::WorkResult> by_id;
  for (const auto& r : results) by_id[r.item_id()] = r;
  EXPECT_EQ(by_id[1].status(), v1::MEASURE_RUNTIME_ERROR);
  EXPECT_NE(by_id[1].error().find("signal 11"), std::string::npos) << by_id[1].error();
  EXPECT_EQ(by_id[2].status(), v1::MEASURE_TIMEOUT) << by_id[2].error();
  EXPECT_EQ(by_id[3].status(), v1::MEASURE_WRONG_ANSWER) << by_id[3].error();
  EXPECT_EQ(by_id[4].status(), v1::MEASURE_OK) << by_id[4].error();
  EXPECT_EQ(by_id[4].costs_size(), 3) << "every repeat is reported";
  EXPECT_EQ(by_id[5].status(), v1::MEASURE_LOAD_ERROR);
  // What the board told about itself.
  const v1::BoardInfo info = tracker.info();
  EXPECT_EQ(info.device_key(), "scripted");
  EXPECT_EQ(info.threads(), 1);
  EXPECT_GT(info.cpu_features_size(), 0);
  EXPECT_NE(info.timing_isolation().find("lock"), std::string::npos);
  board.kill(SIGTERM);
  EXPECT_EQ(board.wait_exit(std::chrono::seconds(20)), 0) << board.output();
  std::remove(log.c_str());
}

TEST(FleetBoard, SigtermFinishesTheItemInFlightThenExits) {
  const std::vector<uint8_t> lib = test_kernels::build_test_library();
  // Three timings of at least 700 ms: the item outlasts two of the board's 1 s heartbeats, so one
  // of them reports it held, and the signal arrives while it is measured.
  ScriptedTracker tracker({item(7, lib, "tf_ok", 700, 30)});
  Server server(tracker);
  const std::string log = "/tmp/tf-board-drain-" + std::to_string(::getpid()) + ".log";
  Process board = start_board(server.address(), log);
  ASSERT_TRUE(
      eventually([&] { return board.output().find("registered") != std::string::npos; }, std::chrono::seconds(30)));
  ASSERT_TRUE(tracker.wait_held(std::chrono::seconds(30))) << board.output();
  EXPECT_TRUE(tracker.results().empty()) << "the item was finished before the signal";
  board.kill(SIGTERM);
  ASSERT_TRUE(tracker.wait_results(1, std::chrono::seconds(30))) << board.output();
  EXPECT_EQ(tracker.results()[0].status(), v1::MEASURE_OK);
  EXPECT_TRUE(tracker.wait_stream_end(std::chrono::seconds(10)));
  EXPECT_TRUE(tracker.saw_draining());
  const int status = board.wait_exit(std::chrono::seconds(20));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << board.output();
  std::remove(log.c_str());
}

TEST(FleetBoard, SigtermWhileStartingUpStillExitsCleanly) {
  // Once in main, the board measures its peak and starts its worker before it dials: a SIGTERM at any
  // moment of that drains it (exit 0) rather than kills it. A second SIGTERM after the first is harmless.
  ScriptedTracker tracker({});
  Server server(tracker);
  for (int delay_ms : {0, 20, 200}) {
    const std::string log = "/tmp/tf-board-early-" + std::to_string(::getpid()) + ".log";
    Process board = start_board(server.address(), log);
    ASSERT_TRUE(eventually([&] { return board.output().find("board: starting") != std::string::npos; },
                           std::chrono::seconds(30)))
        << board.output();
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    board.kill(SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    board.kill(SIGTERM);
    const int status = board.wait_exit(std::chrono::seconds(30));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "SIGTERM " << delay_ms << " ms into its start: status " << status << "\n"
        << board.output();
    std::remove(log.c_str());
  }
}

}  // namespace
}  // namespace tf::fleet_test

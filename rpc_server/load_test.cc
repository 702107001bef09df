#include "rpc_server/load_test.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <vector>

#include "proto/measure_wire.h"
#include "proto/synthetic_peers.h"
#include "proto/tunefarm.grpc.pb.h"
#include "rpc_server/board_info.h"
#include "support/stats.h"

namespace tf::board {

namespace {

using Clock = std::chrono::steady_clock;

// What the synthetic boards saw: items answered, and the time from a board's result to its next
// item (the tracker's turnaround).
class Stats {
 public:
  explicit Stats(int boards) : result_sent_(static_cast<size_t>(boards)) {}
  void item(int board) {
    const auto now = Clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    Clock::time_point& sent = result_sent_[static_cast<size_t>(board)];
    if (sent != Clock::time_point{})
      latency_ms_.push_back(std::chrono::duration<double, std::milli>(now - sent).count());
    if (items_++ == 0) first_ = now;
    sent = last_ = now;
  }
  void print(int boards) {
    std::lock_guard<std::mutex> lock(mu_);
    const double seconds = items_ > 0 ? std::chrono::duration<double>(last_ - first_).count() : 0;
    std::printf(
        "{\"boards\": %d, \"items\": %lld, \"seconds\": %.3f, \"items_per_s\": %.1f, \"latency_ms_p50\": %.3f, "
        "\"latency_ms_p99\": %.3f}\n",
        boards, static_cast<long long>(items_), seconds, seconds > 0 ? static_cast<double>(items_) / seconds : 0.0,
        percentile(latency_ms_, 0.5), percentile(latency_ms_, 0.99));
  }

 private:
  std::mutex mu_;
  std::vector<Clock::time_point> result_sent_;
  std::vector<double> latency_ms_;
  int64_t items_ = 0;
  Clock::time_point first_, last_;
};

v1::BoardMessage registration(const BoardOptions& opts, int index) {
  v1::BoardInfo info = detect_board(opts.key, {}, 1);
  // It loads no library at all, so it may share a key with sandboxed boards.
  info.set_sandboxed(true);
  info.set_hostname(info.hostname() + "-loadtest");
  info.set_pid(info.pid() * 1000 + index);
  info.set_timing_isolation("load test: synthetic timings, no code runs");
  v1::BoardMessage reg;
  *reg.mutable_register_()->mutable_info() = info;
  return reg;
}

v1::BoardMessage result_for(const v1::WorkItem& work) {
  v1::BoardMessage out;
  auto* r = out.mutable_result();
  r->set_item_id(work.item_id());
  r->set_status(v1::MEASURE_OK);
  // A made-up but stable cost per library, so the tuner sees a landscape, not noise.
  const double cost = 1e-3 * (1.0 + static_cast<double>(std::hash<std::string>{}(work.library()) % 1000) / 1000.0);
  // As many timings and runs per timing as the item asks for: the tracker refuses any other count.
  const runtime::MeasureOptions asked = fleet::from_wire(work.measure());
  for (int i = 0; i < std::max(1, asked.repeat); ++i) r->add_costs(cost);
  r->set_number(std::max(1, asked.number));
  return out;
}

}  // namespace

int run_load_test(const BoardOptions& opts) {
  Stats stats(opts.load_test_boards);
  fleet::SyntheticRole<v1::BoardMessage, v1::TrackerMessage> role;
  role.what = "board";
  role.registration = [&opts](int index) { return registration(opts, index); };
  role.registered = [](const v1::TrackerMessage& m) -> std::optional<int> {
    if (!m.has_registered()) return std::nullopt;
    return m.registered().heartbeat_interval_ms();
  };
  role.answer = [&stats](int index, const v1::TrackerMessage& m) -> std::optional<v1::BoardMessage> {
    if (!m.has_work()) return std::nullopt;
    stats.item(index);
    return result_for(m.work());
  };
  role.heartbeat = [] {
    v1::BoardMessage hb;
    hb.mutable_heartbeat()->set_queued(0);
    return hb;
  };
  fleet::SyntheticPeers<v1::Boards, v1::BoardMessage, v1::TrackerMessage> boards(
      {opts.tracker, opts.token, opts.load_test_boards, opts.max_backoff_ms}, std::move(role));
  std::printf("load test: %d synthetic boards with key %s connecting to %s (no code runs)\n", opts.load_test_boards,
              opts.key.c_str(), opts.tracker.c_str());
  std::fflush(stdout);
  boards.run();
  stats.print(opts.load_test_boards);
  return 0;
}

}  // namespace tf::board

// The boards of the fleet and the work queued for them. Boards join and leave (a stream opens, a
// stream ends or its heartbeats stop); work items queue per device key and per job, and go to
// idle boards of the key. Jobs on one key share its boards in the ratio of their priorities
// (stride scheduling: each dispatch advances the job's pass by 1/priority, the job with the lowest
// pass goes next). A board that is lost hands its in-flight items back to the front of their
// queues, for another board of the key; a result for an item already given away is dropped, so
// every item completes exactly once. Each item in flight has a deadline derived from its measure
// options (a board measures one item at a time, so an item's deadline counts from the one ahead of
// it); a board that holds an item past it is dropped, even while it heartbeats, and the item moves
// on.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "proto/tunefarm.pb.h"
#include "tracker/metrics.h"
#include "tuner/measurer.h"

namespace tf::tracker {

namespace v1 = ::tunefarm::v1;

// How the tracker writes to one board's stream. Messages are handed over in the order the
// dispatcher decided them; `send` returns false when the stream is gone.
struct BoardLink {
  std::function<bool(const v1::TrackerMessage&)> send;
  std::function<void()> disconnect;  // ends the stream (the board's handler then calls remove_board)
};

struct DispatcherOptions {
  int slots_per_board = 2;  // items in flight per board: one measured, one waiting behind it
  int max_attempts = 3;     // boards an item may be lost with before it fails
  // Added to each item's own time limit for its deadline: a worker restart, the reference, the
  // result's way back.
  std::chrono::milliseconds item_grace{10000};
};

// What a queued item asks of the board that measures it.
struct ItemTerms {
  // Measured on this board (a board's "host:pid", as results name it) or not at all; empty: any
  // board of the key. The item then fails, instead of moving to another board, when that board is
  // not connected or leaves: what a side-by-side comparison needs.
  std::string only_device;
  // A library a client supplied: only a board whose worker confines kernels may get it, checked
  // for each board the item could go to (a key's boards change while it waits).
  bool needs_sandbox = false;
  // FLOPs per run, for refusing timings no board can produce (runtime/timing_check.h); 0: unknown.
  double flops = 0;
};

class Dispatcher {
 public:
  explicit Dispatcher(DispatcherOptions opts = {});
  ~Dispatcher();

  // Boards. `board_id` is unique per connection.
  void add_board(const std::string& board_id, const v1::BoardInfo& info, const std::string& target,
                 const std::string& peer, BoardLink link);
  void remove_board(const std::string& board_id, const std::string& why);
  void on_heartbeat(const std::string& board_id, const v1::Heartbeat& hb);
  void on_result(const std::string& board_id, const v1::WorkResult& result);
  // Boards whose last heartbeat is older than `timeout` are disconnected (and then removed).
  void disconnect_silent_boards(std::chrono::milliseconds timeout);
  // Boards that hold an item past its deadline are removed (their items go back to the queues,
  // each counting as lost once) and disconnected. Returns one line per board dropped, for the log.
  std::vector<std::string> drop_boards_with_overdue_items();
  std::vector<v1::Device> devices(const std::string& key = "") const;
  int boards_of_key(const std::string& key) const;
  // The CPUs that boards on `hostname` pin their kernels to; `unpinned` when one of them is not
  // pinned (it may run on any CPU).
  struct HostCpuUse {
    std::set<int> pinned;
    bool unpinned = false;
    int boards = 0;
  };
  HostCpuUse cpu_use_on(const std::string& hostname) const;
  // The target candidates for `key` are built for: the first connected board's; empty when none.
  std::string target_of_key(const std::string& key) const;
  // What one of the key's connected boards said of itself (boards of a key are alike); nullopt
  // when none is connected.
  std::optional<v1::BoardInfo> board_of_key(const std::string& key) const;

  // Work. The reference is sent to a board once, before the first item that needs it. A result
  // whose timings fail runtime/timing_check.h (with the board's measured peak and `terms.flops`)
  // comes back as a failed trial naming the board.
  std::future<tuner::Measured> submit(int64_t job_id, int priority, const std::string& key,
                                      std::shared_ptr<const v1::Reference> reference, v1::WorkItem item,
                                      const ItemTerms& terms = {});
  // Answers every queued and in-flight item of the job at once as cancelled. A board still
  // measuring one keeps its slot until it answers (the answer is dropped, and the slot goes to the
  // next item of the key) or the item's deadline passes.
  void cancel_job(int64_t job_id);
  void shutdown();  // cancels everything; submit() afterwards answers cancelled

  int64_t dispatched() const;
  // Items waiting for a board, by key.
  std::map<std::string, int64_t> queued_per_key() const;
  // Counters and the measurement latency histogram, for /metrics.
  Metrics& metrics() { return metrics_; }
  int slots_per_board() const { return opts_.slots_per_board; }

 private:
  struct Item;
  struct Board;
  struct JobQueue {
    int priority = 1;
    double pass = 0;
    std::deque<std::shared_ptr<Item>> items;
  };
  struct KeyQueue {
    std::map<int64_t, JobQueue> jobs;
    double virtual_time = 0;
  };
  using Outbox = std::vector<std::shared_ptr<Board>>;  // boards with messages to write

  void pump_locked(const std::string& key, Outbox* out);
  void deliver(Outbox& out);  // writes the boards' pending messages, outside mu_
  void finish_locked(std::shared_ptr<Item> item, tuner::Measured m);
  std::chrono::milliseconds time_limit(const v1::WorkItem& work) const;
  static tuner::Measured board_gone(const std::string& device, const std::string& why);
  // Why a board's successful result cannot be true (runtime/timing_check.h); empty when it can.
  static std::string result_problem(const Item& item, const Board& board, const runtime::MeasureResult& r);
  bool board_connected_locked(const std::string& key, const std::string& device) const;  // with mu_ held
  bool sandboxed_board_locked(const std::string& key) const;  // one of the key's boards confines kernels (mu_ held)
  // Fails the key's queued items that only a sandboxed board may take, when none is left (mu_ held).
  void fail_unplaceable_locked(const std::string& key, const std::string& why);

  DispatcherOptions opts_;
  Metrics metrics_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Board>> boards_;  // by id
  // The same boards by key, and how many of each key take work (are not draining): a dispatch and
  // a job's capacity look at one key's boards only, however many other keys' there are.
  std::map<std::string, std::vector<std::shared_ptr<Board>>> boards_by_key_;
  std::map<std::string, int> taking_work_by_key_;
  std::map<std::string, KeyQueue> queues_;
  std::map<uint64_t, std::shared_ptr<Item>> items_;  // every unfinished item, by id
  uint64_t next_item_id_ = 1;
  int64_t dispatched_ = 0;
  bool shut_down_ = false;
};

}  // namespace tf::tracker

#include "tracker/dispatcher.h"

#include <algorithm>
#include <cmath>

#include "proto/measure_wire.h"
#include "runtime/timing_check.h"

namespace tf::tracker {

namespace {

using Clock = std::chrono::steady_clock;

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

tuner::Measured cancelled_result() {
  tuner::Measured m;
  m.cancelled = true;
  m.result.status = runtime::MeasureStatus::RuntimeError;
  m.result.error = "cancelled";
  return m;
}

}  // namespace

// Both ends keep the same number of references, least recently used first out: the tracker
// decides which items a board gets in the order the board receives them, so the two caches hold
// the same references at every step and the tracker knows when to send one again.
constexpr size_t kReferencesPerBoard = 16;

struct Dispatcher::Item {
  uint64_t id = 0;
  int64_t job_id = 0;
  int priority = 1;
  std::string key;
  std::shared_ptr<const v1::Reference> reference;
  std::shared_ptr<const v1::TrackerMessage> message;  // the WorkItem, built once
  std::promise<tuner::Measured> done;
  int attempts = 0;
  ItemTerms terms;
  std::chrono::milliseconds time_limit{0};        // from dispatch to answer, when first in the board's line
  std::string board_id;                           // while in flight
  std::chrono::steady_clock::time_point sent_at;  // while in flight
  std::string lost_on;                            // boards it was lost with, for the error message
};

struct Dispatcher::Board {
  std::string id, key, target, peer, device;
  v1::BoardInfo info;
  BoardLink link;
  // Items sent and not answered, with their deadlines; a cancelled item stays until its answer.
  std::map<uint64_t, Clock::time_point> in_flight;
  std::deque<uint64_t> references;  // held by the board, least recently used first
  Clock::time_point last_heartbeat = Clock::now();
  int64_t connected_ms = wall_ms(), last_heartbeat_ms = wall_ms();
  bool draining = false;
  int64_t items_done = 0, items_failed = 0;
  // When it held work: intervals of the last hour, and since when it holds work now.
  Clock::time_point connected_at = Clock::now(), busy_since;
  std::deque<std::pair<Clock::time_point, Clock::time_point>> busy;
  void became_idle(Clock::time_point now) {
    busy.emplace_back(busy_since, now);
    while (!busy.empty() && busy.front().second < now - std::chrono::hours(1)) busy.pop_front();
  }
  double utilization(Clock::time_point now, bool working) const {
    const auto from = std::max(connected_at, now - std::chrono::hours(1));
    double held = 0;
    for (const auto& [a, b] : busy) held += std::chrono::duration<double>(b - std::max(a, from)).count() * (b > from);
    if (working) held += std::chrono::duration<double>(now - std::max(busy_since, from)).count();
    const double window = std::chrono::duration<double>(now - from).count();
    return window > 0 ? std::clamp(held / window, 0.0, 1.0) : 0.0;
  }
  // Messages decided for this board and not yet written, in decision order (guarded by mu_);
  // whoever holds send_mu writes them, so two threads never reorder or interleave them.
  std::deque<std::shared_ptr<const v1::TrackerMessage>> pending;
  std::mutex send_mu;
  bool closed = false;  // guarded by send_mu: the stream is gone, write nothing more
};

Dispatcher::Dispatcher(DispatcherOptions opts) : opts_(opts) {}

std::string Dispatcher::result_problem(const Item& item, const Board& board, const runtime::MeasureResult& r) {
  const runtime::MeasureOptions asked = fleet::from_wire(item.message->work().measure());
  if (std::string why = runtime::result_problem(r, asked); !why.empty()) return why;
  const double fastest = *std::min_element(r.costs.begin(), r.costs.end());
  return runtime::speed_problem(item.terms.flops, fastest, board.info.peak_gflops());
}

tuner::Measured Dispatcher::board_gone(const std::string& device, const std::string& why) {
  tuner::Measured m;
  m.result.status = runtime::MeasureStatus::RuntimeError;
  m.result.error = "board " + device + " is gone (" + why + "); the item was bound to it";
  m.device = device;
  m.board_lost = true;
  return m;
}

bool Dispatcher::board_connected_locked(const std::string& key, const std::string& device) const {
  for (const auto& [id, b] : boards_) {
    if (b->key == key && b->device == device) return true;
  }
  return false;
}

bool Dispatcher::sandboxed_board_locked(const std::string& key) const {
  for (const auto& [id, b] : boards_) {
    if (b->key == key && b->info.sandboxed()) return true;
  }
  return false;
}

void Dispatcher::fail_unplaceable_locked(const std::string& key, const std::string& why) {
  if (sandboxed_board_locked(key)) return;
  auto kq = queues_.find(key);
  if (kq == queues_.end()) return;
  for (auto& [job, jq] : kq->second.jobs) {
    for (auto qi = jq.items.begin(); qi != jq.items.end();) {
      if (!(*qi)->terms.needs_sandbox) {
        ++qi;
        continue;
      }
      tuner::Measured m;
      m.result.status = runtime::MeasureStatus::RuntimeError;
      m.result.error = "no board of key " + key + " that confines kernels (sandboxed) is connected " + why +
                       "; a client's library goes to no other";
      m.board_lost = true;
      finish_locked(*qi, m);
      qi = jq.items.erase(qi);
    }
  }
}

Dispatcher::~Dispatcher() { shutdown(); }

void Dispatcher::add_board(const std::string& id, const v1::BoardInfo& info, const std::string& target,
                           const std::string& peer, BoardLink link) {
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto b = std::make_shared<Board>();
    b->device = info.hostname() + ":" + std::to_string(info.pid());
    b->id = id;
    b->key = info.device_key();
    b->target = target;
    b->peer = peer;
    b->info = info;
    b->link = std::move(link);
    boards_[id] = b;
    boards_by_key_[b->key].push_back(b);
    ++taking_work_by_key_[b->key];
    pump_locked(b->key, &out);
  }
  deliver(out);
}

void Dispatcher::remove_board(const std::string& board_id, const std::string& why) {
  Outbox out;
  std::shared_ptr<Board> board;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = boards_.find(board_id);
    if (it == boards_.end()) return;
    board = it->second;
    boards_.erase(it);
    auto& of_key = boards_by_key_[board->key];
    of_key.erase(std::remove(of_key.begin(), of_key.end(), board), of_key.end());
    if (of_key.empty()) boards_by_key_.erase(board->key);
    if (!board->draining && --taking_work_by_key_[board->key] <= 0) taking_work_by_key_.erase(board->key);
    // Its unfinished items go back to the front of their queues, in their original order.
    std::vector<uint64_t> lost;
    for (auto it = board->in_flight.rbegin(); it != board->in_flight.rend(); ++it) lost.push_back(it->first);
    for (uint64_t item_id : lost) {
      auto item_it = items_.find(item_id);
      if (item_it == items_.end()) continue;
      auto item = item_it->second;
      item->board_id.clear();
      item->lost_on += (item->lost_on.empty() ? "" : ", ") + board_id + " (" + why + ")";
      metrics_.answered(board->key, "lost", -1);
      if (!item->terms.only_device.empty()) {
        finish_locked(item, board_gone(board->device, why));
        continue;
      }
      if (++item->attempts >= opts_.max_attempts) {
        tuner::Measured m;
        m.result.status = runtime::MeasureStatus::RuntimeError;
        m.result.error = "lost " + std::to_string(item->attempts) + " boards while measuring it: " + item->lost_on;
        m.device = board->device;
        finish_locked(item, m);
        continue;
      }
      auto& kq = queues_[item->key];
      auto& jq = kq.jobs[item->job_id];
      jq.priority = item->priority;
      if (jq.items.empty()) jq.pass = std::max(jq.pass, kq.virtual_time);
      jq.items.push_front(item);
    }
    // Queued items that only this board may measure cannot be measured any more.
    if (!board_connected_locked(board->key, board->device)) {
      for (auto& [job, jq] : queues_[board->key].jobs) {
        for (auto qi = jq.items.begin(); qi != jq.items.end();) {
          if ((*qi)->terms.only_device == board->device) {
            finish_locked(*qi, board_gone(board->device, why));
            qi = jq.items.erase(qi);
          } else {
            ++qi;
          }
        }
      }
    }
    fail_unplaceable_locked(board->key, "(the last one, " + board->device + ", left: " + why + ")");
    pump_locked(board->key, &out);
  }
  {
    // The stream is destroyed when its handler returns: wait out a write in progress, and mark
    // the board so that no later one starts.
    std::lock_guard<std::mutex> sending(board->send_mu);
    board->closed = true;
  }
  deliver(out);
}

void Dispatcher::on_heartbeat(const std::string& board_id, const v1::Heartbeat& hb) {
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = boards_.find(board_id);
    if (it == boards_.end()) return;
    it->second->last_heartbeat = Clock::now();
    it->second->last_heartbeat_ms = wall_ms();
    const bool was_draining = it->second->draining;
    it->second->draining = hb.draining();
    if (was_draining != hb.draining()) {
      taking_work_by_key_[it->second->key] += hb.draining() ? -1 : 1;
      pump_locked(it->second->key, &out);
    }
  }
  deliver(out);
}

void Dispatcher::on_result(const std::string& board_id, const v1::WorkResult& r) {
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = boards_.find(board_id);
    if (it == boards_.end()) return;
    auto& board = *it->second;
    board.last_heartbeat = Clock::now();
    board.last_heartbeat_ms = wall_ms();
    // A result for an item this board no longer holds (cancelled, or given to another board
    // after a heartbeat timeout) is dropped: the item completes once.
    if (board.in_flight.erase(r.item_id()) == 0) return;
    ++board.items_done;
    if (board.in_flight.empty()) board.became_idle(Clock::now());
    auto item_it = items_.find(r.item_id());
    if (item_it != items_.end()) {
      tuner::Measured m;
      m.result.status = fleet::from_wire(r.status());
      m.result.costs.assign(r.costs().begin(), r.costs().end());
      m.result.number = r.number();
      m.result.error = r.error();
      m.device = board.device;
      if (m.result.status == runtime::MeasureStatus::Ok) {
        const std::string why = result_problem(*item_it->second, board, m.result);
        if (!why.empty()) {
          m.result.status = runtime::MeasureStatus::RuntimeError;
          m.result.error = "board " + board.device + " (key " + board.key + ") sent an unusable timing: " + why;
          m.result.costs.clear();
        }
      }
      if (m.result.status != runtime::MeasureStatus::Ok) ++board.items_failed;
      const double seconds = std::chrono::duration<double>(Clock::now() - item_it->second->sent_at).count();
      metrics_.answered(board.key, runtime::measure_status_name(m.result.status), seconds);
      finish_locked(item_it->second, m);
    }
    pump_locked(board.key, &out);
  }
  deliver(out);
}

std::vector<std::string> Dispatcher::drop_boards_with_overdue_items() {
  struct Overdue {
    std::string board_id, why;
    std::function<void()> disconnect;
  };
  std::vector<Overdue> overdue;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    for (auto& [id, b] : boards_) {
      for (const auto& [item_id, due] : b->in_flight) {
        if (due >= now) continue;
        overdue.push_back(
            {id, "no answer for item " + std::to_string(item_id) + " by its deadline", b->link.disconnect});
        break;
      }
    }
  }
  std::vector<std::string> dropped;
  for (auto& o : overdue) {
    remove_board(o.board_id, o.why);
    if (o.disconnect) o.disconnect();
    dropped.push_back("board " + o.board_id + " dropped: " + o.why + "; its items go to other boards");
  }
  return dropped;
}

void Dispatcher::disconnect_silent_boards(std::chrono::milliseconds timeout) {
  std::vector<std::function<void()>> disconnects;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    for (auto& [id, b] : boards_) {
      if (now - b->last_heartbeat > timeout && b->link.disconnect) disconnects.push_back(b->link.disconnect);
    }
  }
  for (auto& d : disconnects) d();
}

std::vector<v1::Device> Dispatcher::devices(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<v1::Device> out;
  for (const auto& [id, b] : boards_) {
    if (!key.empty() && b->key != key) continue;
    v1::Device d;
    d.set_device_key(b->key);
    d.set_board_id(b->id);
    d.set_hostname(b->info.hostname());
    d.set_target(b->target);
    d.set_cpu_name(b->info.cpu_name());
    d.set_cores(b->info.cores());
    d.set_threads(b->info.threads());
    d.set_memory_bytes(b->info.memory_bytes());
    d.set_runtime_version(b->info.runtime_version());
    d.set_state(b->draining ? "draining" : b->in_flight.empty() ? "idle" : "busy");
    d.set_peer(b->peer);
    d.set_connected_ms(b->connected_ms);
    d.set_last_heartbeat_ms(b->last_heartbeat_ms);
    d.set_items_done(b->items_done);
    d.set_items_failed(b->items_failed);
    d.set_utilization_1h(b->utilization(Clock::now(), !b->in_flight.empty()));
    d.set_in_flight(static_cast<int32_t>(b->in_flight.size()));
    d.set_timing_isolation(b->info.timing_isolation());
    d.set_emulated(b->info.emulated());
    d.set_sandboxed(b->info.sandboxed());
    d.set_peak_gflops(b->info.peak_gflops());
    out.push_back(d);
  }
  return out;
}

int Dispatcher::boards_of_key(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = taking_work_by_key_.find(key);
  return it == taking_work_by_key_.end() ? 0 : it->second;
}

Dispatcher::HostCpuUse Dispatcher::cpu_use_on(const std::string& hostname) const {
  std::lock_guard<std::mutex> lock(mu_);
  HostCpuUse use;
  for (const auto& [id, b] : boards_) {
    if (b->info.hostname() != hostname) continue;
    ++use.boards;
    if (b->info.pinned_cpus().empty()) use.unpinned = true;
    for (int c : b->info.pinned_cpus()) use.pinned.insert(c);
  }
  return use;
}

std::string Dispatcher::target_of_key(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, b] : boards_) {
    if (b->key == key) return b->target;
  }
  return "";
}

std::optional<v1::BoardInfo> Dispatcher::board_of_key(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, b] : boards_) {
    if (b->key == key) return b->info;
  }
  return std::nullopt;
}

std::future<tuner::Measured> Dispatcher::submit(int64_t job_id, int priority, const std::string& key,
                                                std::shared_ptr<const v1::Reference> reference, v1::WorkItem work,
                                                const ItemTerms& terms) {
  auto item = std::make_shared<Item>();
  std::future<tuner::Measured> result = item->done.get_future();
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) {
      item->done.set_value(cancelled_result());
      return result;
    }
    if (!terms.only_device.empty() && !board_connected_locked(key, terms.only_device)) {
      item->done.set_value(board_gone(terms.only_device, "not connected with key " + key));
      return result;
    }
    if (terms.needs_sandbox && !sandboxed_board_locked(key)) {
      tuner::Measured m;
      m.result.status = runtime::MeasureStatus::RuntimeError;
      m.result.error = "no board of key " + key +
                       " that confines kernels (sandboxed) is connected; a client's library goes to no other";
      m.board_lost = true;
      item->done.set_value(std::move(m));
      return result;
    }
    item->id = next_item_id_++;
    item->terms = terms;
    item->job_id = job_id;
    item->priority = std::max(1, priority);
    item->key = key;
    item->reference = std::move(reference);
    item->time_limit = time_limit(work);
    work.set_item_id(item->id);
    work.set_reference_id(item->reference->reference_id());
    auto msg = std::make_shared<v1::TrackerMessage>();
    *msg->mutable_work() = std::move(work);
    item->message = std::move(msg);
    items_[item->id] = item;
    auto& kq = queues_[key];
    auto& jq = kq.jobs[job_id];
    jq.priority = std::max(1, priority);
    if (jq.items.empty()) jq.pass = std::max(jq.pass, kq.virtual_time);
    jq.items.push_back(item);
    pump_locked(key, &out);
  }
  deliver(out);
  return result;
}

void Dispatcher::cancel_job(int64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, kq] : queues_) kq.jobs.erase(job_id);
  std::vector<std::shared_ptr<Item>> doomed;
  for (auto& [id, item] : items_) {
    if (item->job_id == job_id) doomed.push_back(item);
  }
  for (auto& item : doomed) finish_locked(item, cancelled_result());
}

void Dispatcher::shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  shut_down_ = true;
  queues_.clear();
  auto items = items_;
  for (auto& [id, item] : items) finish_locked(item, cancelled_result());
}

int64_t Dispatcher::dispatched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dispatched_;
}

std::chrono::milliseconds Dispatcher::time_limit(const v1::WorkItem& work) const {
  // A board's worker kills a kernel at timeout_s, and its timing may wait for another board on
  // the host to finish one: twice the candidate's own limit, plus the grace.
  const runtime::MeasureOptions o = fleet::from_wire(work.measure());
  const double timeout_s =
      std::isfinite(o.timeout_s) ? std::clamp(o.timeout_s, 0.0, runtime::kMaxTimeoutS) : runtime::kMaxTimeoutS;
  const double cooldown_s =
      std::isfinite(o.cooldown_ms) ? std::clamp(o.cooldown_ms, 0.0, runtime::kMaxRepeatMs) / 1000 : 0;
  return std::chrono::milliseconds(static_cast<int64_t>(2000 * (timeout_s + cooldown_s))) + opts_.item_grace;
}

std::map<std::string, int64_t> Dispatcher::queued_per_key() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, int64_t> out;
  for (const auto& [key, kq] : queues_) {
    int64_t n = 0;
    for (const auto& [job, jq] : kq.jobs) n += static_cast<int64_t>(jq.items.size());
    out[key] = n;
  }
  return out;
}

void Dispatcher::finish_locked(std::shared_ptr<Item> item,
                               tuner::Measured m) {  // by value: erasing frees the map's copy
  if (items_.erase(item->id) == 0) return;
  item->done.set_value(std::move(m));
}

void Dispatcher::pump_locked(const std::string& key, Outbox* out) {
  auto kq_it = queues_.find(key);
  if (kq_it == queues_.end()) return;
  KeyQueue& kq = kq_it->second;
  for (;;) {
    // The job with the lowest pass whose next item has a board to go to: the least loaded board
    // of the key with a free slot (or the one board the item is bound to).
    std::vector<JobQueue*> waiting;
    for (auto& [id, jq] : kq.jobs) {
      if (!jq.items.empty()) waiting.push_back(&jq);
    }
    std::stable_sort(waiting.begin(), waiting.end(),
                     [](const JobQueue* a, const JobQueue* b) { return a->pass < b->pass; });
    JobQueue* job = nullptr;
    std::shared_ptr<Board> board;
    const auto of_key = boards_by_key_.find(key);
    for (JobQueue* jq : waiting) {
      if (of_key == boards_by_key_.end()) break;
      const ItemTerms& terms = jq->items.front()->terms;
      for (auto& b : of_key->second) {
        if (b->draining || static_cast<int>(b->in_flight.size()) >= opts_.slots_per_board) continue;
        if (!terms.only_device.empty() && b->device != terms.only_device) continue;
        if (terms.needs_sandbox && !b->info.sandboxed()) continue;
        if (!board || b->in_flight.size() < board->in_flight.size() ||
            (b->in_flight.size() == board->in_flight.size() && b->items_done < board->items_done)) {
          board = b;
        }
      }
      if (board) {
        job = jq;
        break;
      }
    }
    if (!job) break;
    auto item = job->items.front();
    job->items.pop_front();
    kq.virtual_time = job->pass;
    job->pass += 1.0 / job->priority;
    item->board_id = board->id;
    // The board measures its items in the order sent: this one starts when the last one ends.
    Clock::time_point start = Clock::now();
    if (board->in_flight.empty()) board->busy_since = start;
    for (const auto& [id, due] : board->in_flight) start = std::max(start, due);
    board->in_flight[item->id] = start + item->time_limit;
    const uint64_t ref = item->reference->reference_id();
    auto held = std::find(board->references.begin(), board->references.end(), ref);
    if (held != board->references.end()) {
      board->references.erase(held);
    } else {
      auto msg = std::make_shared<v1::TrackerMessage>();
      *msg->mutable_reference() = *item->reference;
      board->pending.push_back(std::move(msg));
      if (board->references.size() >= kReferencesPerBoard) board->references.pop_front();
    }
    board->references.push_back(ref);
    board->pending.push_back(item->message);
    ++dispatched_;
    item->sent_at = Clock::now();
    metrics_.dispatched(key);
    if (std::find(out->begin(), out->end(), board) == out->end()) {
      out->push_back(board);
    }
  }
  // Job queues that ran dry are forgotten, so that a finished job leaves nothing behind.
  for (auto it = kq.jobs.begin(); it != kq.jobs.end();) {
    it = it->second.items.empty() ? kq.jobs.erase(it) : std::next(it);
  }
}

void Dispatcher::deliver(Outbox& out) {
  for (auto& board : out) {
    std::lock_guard<std::mutex> sending(board->send_mu);
    while (!board->closed) {
      std::shared_ptr<const v1::TrackerMessage> msg;
      {
        // pending is guarded by the dispatcher's mutex; see Board::pending.
        std::lock_guard<std::mutex> lock(mu_);
        if (board->pending.empty()) break;
        msg = board->pending.front();
        board->pending.pop_front();
      }
      if (!board->link.send(*msg)) break;  // the stream is gone; remove_board follows
    }
  }
}

}  // namespace tf::tracker

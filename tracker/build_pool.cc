#include "tracker/build_pool.h"

#include <algorithm>

#include "compiler/compiler.h"
#include "compiler/ops/operator.h"

namespace tf::tracker {

namespace {

constexpr int kAttemptsBeforeBuildingHere = 3;
constexpr int64_t kBadAnswersBeforeDisconnect = 3;
constexpr size_t kMaxErrorBytes = 4096;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "x86_64" of "x86_64-pc-linux-gnu": what a builder's LLVM must emit code for.
std::string arch_of(const std::string& triple) { return triple.substr(0, triple.find('-')); }

// ELF's e_machine for the architectures tunefarm builds for; 0: not checked.
int elf_machine_of(const std::string& arch) {
  if (arch == "x86_64") return 62;
  if (arch == "aarch64") return 183;
  return 0;
}

// Why a builder's library cannot be what was asked for; "" when it can.
std::string library_problem(const v1::BuildResult& r, const std::string& triple, const std::string& entry,
                            int64_t max_bytes) {
  const std::string& lib = r.library();
  if (lib.empty()) return "no library and no compile error";
  if (static_cast<int64_t>(lib.size()) > max_bytes) return "a library of " + std::to_string(lib.size()) + " bytes";
  if (lib.size() < 20 || lib.compare(0, 4,
                                     "\x7f"
                                     "ELF") != 0)
    return "a library that is not an ELF file";
  const int machine = static_cast<unsigned char>(lib[18]) | (static_cast<unsigned char>(lib[19]) << 8);
  if (const int want = elf_machine_of(arch_of(triple)); want != 0 && machine != want)
    return "a library for ELF machine " + std::to_string(machine) + ", not " + arch_of(triple);
  if (r.entry_symbol() != entry) return "entry symbol '" + r.entry_symbol().substr(0, 128) + "', not '" + entry + "'";
  return "";
}

}  // namespace

struct BuildPool::Pending {
  uint64_t id = 0;
  const compiler::Task* task = nullptr;
  space::Config config;
  std::string key, triple;
  std::shared_ptr<std::promise<tuner::Built>> promise = std::make_shared<std::promise<tuner::Built>>();
  std::string holder;  // the builder it was sent to; empty while queued
  Clock::time_point sent_at;
  int attempts = 0;
  std::shared_ptr<const v1::BuilderWork> message;
};

struct BuildPool::Remote {
  std::string id, peer;
  v1::BuilderInfo info;
  BuilderLink link;
  std::mutex send_mu;   // one writer on the stream at a time
  bool closed = false;  // send_mu: the stream is gone (or going), write nothing more
  std::deque<std::shared_ptr<const v1::BuilderWork>> outbox;  // mu_: written by deliver()
  std::set<uint64_t> holding;                                 // mu_
  int slots = 0;
  bool draining = false;
  int64_t done = 0, failed = 0, bad = 0, connected_ms = 0, last_heartbeat_ms = 0;
  Clock::time_point last_heartbeat = Clock::now(), connected = Clock::now();
  std::deque<Clock::time_point> recent;  // answers in the last minute
  bool builds_for(const std::string& arch) const {
    for (const auto& t : info.triples())
      if (arch_of(t) == arch) return true;
    return false;
  }
};

BuildPool::BuildPool(tuner::LocalBuilder& local, BuildPoolOptions options)
    : local_(local), options_(options), compiler_version_(compiler::version()) {}

BuildPool::~BuildPool() {
  // A job waits for every build it started: what is still out is built here.
  std::vector<std::shared_ptr<Pending>> here;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, p] : builds_) here.push_back(p);
    builds_.clear();
    queue_.clear();
  }
  build_here(here);
}

std::string BuildPool::cache_key(const compiler::Task& task, const space::Config& config) const {
  return task.workload().str() + "|" + task.target().str() + "|" + std::to_string(config.index()) + "|" +
         compiler_version_;
}

bool BuildPool::cached(const std::string& key, tuner::Built* out) {
  if (options_.cache_bytes <= 0) return false;
  auto it = cache_index_.find(key);
  if (it == cache_index_.end()) return false;
  cache_.splice(cache_.begin(), cache_, it->second);
  out->lib = it->second->second;
  out->cached = true;
  return true;
}

void BuildPool::remember(const std::string& key, const codegen::SharedLibrary& lib) {
  if (options_.cache_bytes <= 0 || cache_index_.count(key)) return;
  cache_.emplace_front(key, lib);
  cache_index_[key] = cache_.begin();
  cache_size_ += static_cast<int64_t>(lib.bytes.size());
  while (cache_size_ > options_.cache_bytes && !cache_.empty()) {
    cache_size_ -= static_cast<int64_t>(cache_.back().second.bytes.size());
    cache_index_.erase(cache_.back().first);
    cache_.pop_back();
  }
}

std::future<tuner::Built> BuildPool::build(const compiler::Task& task, const space::Config& config) {
  auto p = std::make_shared<Pending>();
  std::future<tuner::Built> result = p->promise->get_future();
  p->task = &task;
  p->config = config;
  p->key = cache_key(task, config);
  p->triple = task.target().triple;
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tuner::Built hit;
    if (cached(p->key, &hit)) {
      ++counts_.cached;
      p->promise->set_value(std::move(hit));
      return result;
    }
    const bool helps = options_.build_here_too && local_.in_flight() < local_.width();
    // A builder makes the task from the workload's op name: an operator a model made (an
    // elementwise chain) that is not in the registry is built here.
    const bool named = ops::has_operator(task.workload().op);
    if (!named || !any_builder_for(p->triple) || helps) {
      ++counts_.local;
      local_.build_into(task, config, p->promise);
      return result;
    }
    p->id = ++next_build_id_;
    auto message = std::make_shared<v1::BuilderWork>();
    v1::BuildRequest* req = message->mutable_build();
    req->set_build_id(p->id);
    req->mutable_workload()->set_op(task.workload().op);
    for (int64_t e : task.workload().shape) req->mutable_workload()->add_shape(e);
    req->set_target(task.target().str());
    req->set_config_index(config.index());
    p->message = std::move(message);
    builds_[p->id] = p;
    queue_.push_back(p->id);
    ++counts_.remote;
    assign(&out);
  }
  deliver(out);
  return result;
}

int BuildPool::width() const {
  std::lock_guard<std::mutex> lock(mu_);
  int slots = 0;
  for (const auto& [id, r] : remotes_) {
    if (!r->draining) slots += r->slots;
  }
  if (slots == 0) return local_.width();
  return slots + (options_.build_here_too ? local_.width() : 0);
}

bool BuildPool::any_builder_for(const std::string& triple) const {
  const std::string arch = arch_of(triple);
  for (const auto& [id, r] : remotes_) {
    if (!r->draining && r->builds_for(arch)) return true;
  }
  return false;
}

void BuildPool::assign(Outbox* out) {
  for (auto it = queue_.begin(); it != queue_.end();) {
    const std::shared_ptr<Pending>& p = builds_.at(*it);
    const std::string arch = arch_of(p->triple);
    std::shared_ptr<Remote> best;
    int best_free = 0;
    for (auto& [id, r] : remotes_) {
      const int free = r->slots - static_cast<int>(r->holding.size());
      if (!r->draining && free > best_free && r->builds_for(arch)) best = r, best_free = free;
    }
    if (!best) {
      ++it;
      continue;
    }
    p->holder = best->id;
    p->sent_at = Clock::now();
    best->holding.insert(p->id);
    best->outbox.push_back(p->message);
    if (std::find(out->begin(), out->end(), best) == out->end()) out->push_back(best);
    it = queue_.erase(it);
  }
}

void BuildPool::deliver(Outbox& out) {
  for (auto& r : out) {
    std::lock_guard<std::mutex> sending(r->send_mu);
    while (!r->closed) {
      std::shared_ptr<const v1::BuilderWork> msg;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (r->outbox.empty()) break;
        msg = r->outbox.front();
        r->outbox.pop_front();
      }
      if (!r->link.send(*msg)) break;  // the stream is gone; remove_builder follows
    }
  }
}

void BuildPool::requeue(uint64_t build_id, std::vector<std::shared_ptr<Pending>>* here) {
  auto it = builds_.find(build_id);
  if (it == builds_.end()) return;
  std::shared_ptr<Pending> p = it->second;
  p->holder.clear();
  ++p->attempts;
  ++counts_.reassigned;
  if (p->attempts >= kAttemptsBeforeBuildingHere || !any_builder_for(p->triple)) {
    builds_.erase(it);
    here->push_back(std::move(p));
  } else {
    queue_.push_front(build_id);
  }
}

void BuildPool::take_unplaceable(std::vector<std::shared_ptr<Pending>>* here) {
  for (auto q = queue_.begin(); q != queue_.end();) {
    auto b = builds_.find(*q);
    if (b != builds_.end() && !any_builder_for(b->second->triple)) {
      here->push_back(b->second);
      builds_.erase(b);
      q = queue_.erase(q);
    } else {
      ++q;
    }
  }
}

void BuildPool::build_here(const std::vector<std::shared_ptr<Pending>>& here) {
  if (here.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    counts_.local += static_cast<int64_t>(here.size());
  }
  for (const auto& p : here) local_.build_into(*p->task, p->config, p->promise);
}

void BuildPool::add_builder(const std::string& id, const v1::BuilderInfo& info, const std::string& peer,
                            BuilderLink link) {
  auto r = std::make_shared<Remote>();
  r->id = id;
  r->peer = peer;
  r->info = info;
  r->link = std::move(link);
  r->slots = std::max(1, info.jobs()) * std::max(1, options_.slots_per_job);
  r->connected_ms = r->last_heartbeat_ms = now_ms();
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    remotes_[id] = r;
    assign(&out);
  }
  deliver(out);
}

void BuildPool::forget_builder_holdings(Remote& r, std::vector<std::shared_ptr<Pending>>* here) {
  const std::set<uint64_t> held = std::move(r.holding);
  r.holding.clear();
  for (uint64_t id : held) requeue(id, here);
}

void BuildPool::remove_builder(const std::string& id, const std::string& /*why*/) {
  std::shared_ptr<Remote> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = remotes_.find(id);
    if (it == remotes_.end()) return;
    r = it->second;
  }
  {
    // The stream ends when the service returns: a write under way finishes first, none starts after.
    std::lock_guard<std::mutex> sending(r->send_mu);
    r->closed = true;
  }
  std::vector<std::shared_ptr<Pending>> here;
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = remotes_.find(id);
    if (it == remotes_.end()) return;
    r->outbox.clear();
    remotes_.erase(it);
    forget_builder_holdings(*r, &here);
    // Queued builds no builder left can take are built here.
    take_unplaceable(&here);
    assign(&out);
  }
  deliver(out);
  build_here(here);
}

void BuildPool::on_heartbeat(const std::string& id, const v1::Heartbeat& hb) {
  std::vector<std::shared_ptr<Pending>> here;
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = remotes_.find(id);
    if (it == remotes_.end()) return;
    Remote& r = *it->second;
    r.last_heartbeat = Clock::now();
    r.last_heartbeat_ms = now_ms();
    if (hb.draining() && !r.draining) {
      // A draining builder finishes what it holds; the queue goes to the others.
      r.draining = true;
      take_unplaceable(&here);
    }
    assign(&out);
  }
  deliver(out);
  build_here(here);
}

std::string BuildPool::on_result(const std::string& id, const v1::BuildResult& result) {
  std::vector<std::shared_ptr<Pending>> here;
  std::shared_ptr<Pending> done;
  tuner::Built built;
  std::string dropped;
  Outbox out;
  std::function<void()> disconnect;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto rit = remotes_.find(id);
    if (rit == remotes_.end()) return "from a builder that is no longer connected";
    Remote& r = *rit->second;
    auto it = builds_.find(result.build_id());
    if (!r.holding.count(result.build_id()) || it == builds_.end()) {
      // A build taken from it (late past its deadline) is no fault; an id never sent is.
      if (result.build_id() == 0 || result.build_id() > next_build_id_) ++r.bad;
      dropped = "build " + std::to_string(result.build_id()) + " is not one this builder holds";
    } else {
      r.holding.erase(result.build_id());
      r.recent.push_back(Clock::now());
      const std::shared_ptr<Pending> p = it->second;
      if (!result.error().empty()) {
        built.error = result.error().substr(0, kMaxErrorBytes);
        built.build_ms = result.build_ms();
        ++r.failed;
        done = p;
        builds_.erase(it);
      } else if (std::string why =
                     library_problem(result, p->triple, p->task->kernel_name(), options_.max_library_bytes);
                 !why.empty()) {
        ++r.bad;
        dropped = "build " + std::to_string(result.build_id()) + " came back as " + why;
        requeue(result.build_id(), &here);
      } else {
        built.lib.bytes.assign(result.library().begin(), result.library().end());
        built.lib.entry_symbol = result.entry_symbol();
        built.build_ms = std::max(0.0, result.build_ms());
        remember(p->key, built.lib);
        ++r.done;
        done = p;
        builds_.erase(it);
      }
    }
    while (!r.recent.empty() && Clock::now() - r.recent.front() > std::chrono::minutes(1)) r.recent.pop_front();
    if (r.bad >= kBadAnswersBeforeDisconnect) disconnect = r.link.disconnect;
    assign(&out);
  }
  if (done) done->promise->set_value(std::move(built));
  deliver(out);
  build_here(here);
  if (disconnect) {
    disconnect();
    dropped += "; the builder is disconnected after " + std::to_string(kBadAnswersBeforeDisconnect) + " such answers";
  }
  return dropped;
}

void BuildPool::disconnect_silent_builders(std::chrono::milliseconds timeout) {
  std::vector<std::function<void()>> silent;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, r] : remotes_) {
      if (Clock::now() - r->last_heartbeat > timeout) silent.push_back(r->link.disconnect);
    }
  }
  for (auto& d : silent) d();
}

void BuildPool::reassign_overdue_builds() {
  std::vector<std::shared_ptr<Pending>> here;
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<uint64_t> overdue;
    for (auto& [id, p] : builds_) {
      if (!p->holder.empty() && Clock::now() - p->sent_at > options_.build_deadline) overdue.push_back(id);
    }
    for (uint64_t id : overdue) {
      auto r = remotes_.find(builds_.at(id)->holder);
      if (r != remotes_.end()) r->second->holding.erase(id);
      requeue(id, &here);
    }
    if (!overdue.empty()) assign(&out);
  }
  deliver(out);
  build_here(here);
}

std::vector<BuilderStatus> BuildPool::builders() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<BuilderStatus> out;
  for (const auto& [id, r] : remotes_) {
    BuilderStatus s;
    s.builder_id = id;
    s.hostname = r->info.hostname();
    s.peer = r->peer;
    s.compiler_version = r->info.compiler_version();
    s.triples.assign(r->info.triples().begin(), r->info.triples().end());
    s.jobs = r->info.jobs();
    s.in_flight = static_cast<int>(r->holding.size());
    s.draining = r->draining;
    s.builds_done = r->done;
    s.builds_failed = r->failed;
    s.bad_answers = r->bad;
    s.connected_ms = r->connected_ms;
    s.last_heartbeat_ms = r->last_heartbeat_ms;
    const double window = std::clamp(std::chrono::duration<double>(Clock::now() - r->connected).count(), 1.0, 60.0);
    int64_t last_minute = 0;
    for (const auto& t : r->recent) last_minute += Clock::now() - t <= std::chrono::minutes(1) ? 1 : 0;
    s.builds_per_s = static_cast<double>(last_minute) / window;
    out.push_back(std::move(s));
  }
  return out;
}

BuildPoolCounts BuildPool::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  BuildPoolCounts c = counts_;
  c.queued = static_cast<int64_t>(queue_.size());
  return c;
}

}  // namespace tf::tracker

// Where the tracker's jobs get their candidates built: on the builders that dialled in
// (tunefarm-builder) when any can build for the job's target, else on the tracker's own threads.
// A build goes to the connected builder with the most free slots; a builder that leaves or falls
// silent has its builds sent to another (or built here when none is left), and an answer for a
// build it no longer holds is dropped, so every build's future is fulfilled exactly once. Libraries
// are cached by (workload, target, config, compiler version), across jobs.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "proto/tunefarm.grpc.pb.h"
#include "tuner/builder.h"

namespace tf::tracker {

namespace v1 = ::tunefarm::v1;

struct BuilderLink {
  std::function<bool(const v1::BuilderWork&)> send;
  std::function<void()> disconnect;  // ends the stream (the service then calls remove_builder)
};

struct BuildPoolOptions {
  int64_t cache_bytes = 256 << 20;
  // With builders connected the tracker's threads build too (they build alone when none is).
  bool build_here_too = false;
  // A build a builder holds longer than this goes to another builder (the late answer is dropped).
  std::chrono::milliseconds build_deadline{120000};
  int slots_per_job = 2;  // builds in flight per build thread of a builder: one building, one waiting
  int64_t max_library_bytes = 64 << 20;
};

// What the dashboard and /metrics show of one builder.
struct BuilderStatus {
  std::string builder_id, hostname, peer, compiler_version;
  std::vector<std::string> triples;
  int jobs = 0, in_flight = 0;
  bool draining = false;
  int64_t builds_done = 0, builds_failed = 0, bad_answers = 0;
  int64_t connected_ms = 0, last_heartbeat_ms = 0;
  double builds_per_s = 0;  // over its last minute connected
};

struct BuildPoolCounts {
  int64_t remote = 0, local = 0, cached = 0, reassigned = 0, queued = 0;
};

class BuildPool : public tuner::Builder {
 public:
  // `local`: the tracker's own build threads, outliving the pool.
  BuildPool(tuner::LocalBuilder& local, BuildPoolOptions options);
  ~BuildPool() override;

  std::future<tuner::Built> build(const compiler::Task& task, const space::Config& config) override;
  int width() const override;

  // compiler::version() of this tracker: a builder's must be the same, so that a config index
  // names the same kernel on both and every record says which compiler built it.
  const std::string& compiler_version() const { return compiler_version_; }
  // The builder service's side.
  void add_builder(const std::string& id, const v1::BuilderInfo& info, const std::string& peer, BuilderLink link);
  void remove_builder(const std::string& id, const std::string& why);
  void on_heartbeat(const std::string& id, const v1::Heartbeat& hb);
  // Returns "" or why the answer was dropped (the service logs it; a builder that keeps sending
  // such answers is disconnected).
  std::string on_result(const std::string& id, const v1::BuildResult& result);

  // The maintenance thread: builders silent for `timeout` are disconnected, builds past their
  // deadline go elsewhere.
  void disconnect_silent_builders(std::chrono::milliseconds timeout);
  void reassign_overdue_builds();

  std::vector<BuilderStatus> builders() const;
  BuildPoolCounts counts() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending;
  struct Remote;
  using Outbox = std::vector<std::shared_ptr<Remote>>;

  std::string cache_key(const compiler::Task& task, const space::Config& config) const;
  bool cached(const std::string& key, tuner::Built* out);
  void remember(const std::string& key, const codegen::SharedLibrary& lib);
  // Gives queued builds to builders with free slots (mu_ held); what to send goes in `out`.
  void assign(Outbox* out);
  void deliver(Outbox& out);
  bool any_builder_for(const std::string& triple) const;  // mu_ held
  // Sends a build back to the queue, or out of it to be built here when no builder can take it
  // (mu_ held; what is to be built here goes in `here`).
  void requeue(uint64_t build_id, std::vector<std::shared_ptr<Pending>>* here);
  void build_here(const std::vector<std::shared_ptr<Pending>>& here);
  // Takes out of the queue the builds no connected builder can take any more (mu_ held).
  void take_unplaceable(std::vector<std::shared_ptr<Pending>>* here);
  void forget_builder_holdings(Remote& r, std::vector<std::shared_ptr<Pending>>* here);  // mu_ held

  tuner::LocalBuilder& local_;
  const BuildPoolOptions options_;
  const std::string compiler_version_;
  mutable std::mutex mu_;
  uint64_t next_build_id_ = 0;
  std::map<uint64_t, std::shared_ptr<Pending>> builds_;  // sent or waiting for a builder
  std::deque<uint64_t> queue_;                           // waiting, oldest first
  std::map<std::string, std::shared_ptr<Remote>> remotes_;
  BuildPoolCounts counts_;

  int64_t cache_size_ = 0;
  std::list<std::pair<std::string, codegen::SharedLibrary>> cache_;
  std::map<std::string, std::list<std::pair<std::string, codegen::SharedLibrary>>::iterator> cache_index_;
};

}  // namespace tf::tracker

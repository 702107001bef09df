// Where candidates are built: a pool of local threads, or the tracker's remote builders
// (tracker/build_pool.h) in front of them. Builds are asynchronous, so a job keeps measuring while the next candidates
// compile.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compiler.h"
#include "tuner/timing_cores.h"

namespace tf::tuner {

struct Built {
  codegen::SharedLibrary lib;
  double build_ms = 0;  // 0 when it came from the cache
  bool cached = false;
  std::string error;  // non-empty: the build failed (the candidate is a compile error)
};

class Builder {
 public:
  virtual ~Builder() = default;
  // `task` must outlive the returned future.
  virtual std::future<Built> build(const compiler::Task& task, const space::Config& config) = 0;
  // How many builds run at once: a job keeps about this many candidates building ahead.
  virtual int width() const = 0;
  // True when the job's timings stop these builds (the kernel needs every core they run on): a
  // batch is then built whole before its first timing, as a timing sent mid-batch would leave
  // cores idle while it waits for the builds in flight.
  virtual bool takes_turns_with_timings() const { return false; }
};

// Threads on this host. A build on a core a timed kernel runs on slows the kernel down, so when the
// host's timings need every core the builders hold the host-wide timing lock shared
// (runtime/host_lock.h): builds and timings take turns. A cache of built libraries (by workload,
// target and config) serves a candidate built before, e.g. by a job that is resumed.
class LocalBuilder : public Builder {
 public:
  // Where one build runs: on these CPUs (empty: anywhere), holding the timing lock shared or not.
  struct Placement {
    std::vector<int> cpus;
    bool hold_timing_lock = false;
  };
  // `timing_lock`: the host-wide lock's path (empty: never hold it). `placement`, asked before each
  // build, decides where it runs (default: anywhere, holding the lock when there is one).
  LocalBuilder(int threads, std::string timing_lock = "", int64_t cache_bytes = 0,
               std::function<Placement()> placement = {});
  // A local job's builders: on every CPU between the job's timings, off the kernel's CPUs or
  // waiting while one runs (tuner/timing_cores.h); holding the timing lock shared when they wait.
  LocalBuilder(int threads, std::shared_ptr<TimingCores> cores, std::string timing_lock);
  ~LocalBuilder() override;
  std::future<Built> build(const compiler::Task& task, const space::Config& config) override;
  // The same, fulfilling a promise someone else handed out (a build that had been meant for a
  // remote builder that left).
  void build_into(const compiler::Task& task, const space::Config& config, std::shared_ptr<std::promise<Built>> done);
  int width() const override { return static_cast<int>(threads_.size()); }
  bool takes_turns_with_timings() const override { return cores_ && cores_->takes_turns(); }
  // Builds queued or running.
  int in_flight() const;
  int64_t cache_hits() const;

 private:
  void run();
  void start_threads(int threads);
  Built build_now(const compiler::Task& task, const space::Config& config);

  std::string timing_lock_;
  std::function<Placement()> placement_;
  std::vector<int> all_cpus_;           // the CPUs the process may use, for builds placed anywhere
  std::shared_ptr<TimingCores> cores_;  // set: threads are placed by it, not per build
  std::vector<std::thread> threads_;
  mutable std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<std::function<void()>> queue_;
  int running_ = 0;
  bool stopping_ = false;

  // LRU cache: key -> library.
  int64_t cache_limit_ = 0, cache_size_ = 0, cache_hits_ = 0;
  std::list<std::pair<std::string, codegen::SharedLibrary>> cache_;
  std::map<std::string, std::list<std::pair<std::string, codegen::SharedLibrary>>::iterator> cache_index_;
};

}  // namespace tf::tuner

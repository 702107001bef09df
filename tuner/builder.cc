#include "tuner/builder.h"

#include <chrono>

#include "runtime/host_lock.h"
#include "runtime/thread_pool.h"

namespace tf::tuner {

LocalBuilder::LocalBuilder(int threads, std::string timing_lock, int64_t cache_bytes,
                           std::function<Placement()> placement)
    : timing_lock_(std::move(timing_lock)),
      placement_(std::move(placement)),
      all_cpus_(runtime::usable_cpus()),
      cache_limit_(cache_bytes) {
  start_threads(threads);
}

LocalBuilder::LocalBuilder(int threads, std::shared_ptr<TimingCores> cores, std::string timing_lock)
    : timing_lock_(std::move(timing_lock)), all_cpus_(runtime::usable_cpus()), cores_(std::move(cores)) {
  start_threads(threads);
}

void LocalBuilder::start_threads(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { run(); });
}

LocalBuilder::~LocalBuilder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (auto& t : threads_) t.join();
}

int LocalBuilder::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(queue_.size()) + running_;
}

int64_t LocalBuilder::cache_hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_hits_;
}

void LocalBuilder::run() {
  BuilderThread placed(cores_.get());
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Queued builds still run when stopping: their futures must be fulfilled.
      if (queue_.empty()) return;
      work = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    work();
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
}

std::future<Built> LocalBuilder::build(const compiler::Task& task, const space::Config& config) {
  auto promise = std::make_shared<std::promise<Built>>();
  std::future<Built> result = promise->get_future();
  build_into(task, config, std::move(promise));
  return result;
}

void LocalBuilder::build_into(const compiler::Task& task, const space::Config& config,
                              std::shared_ptr<std::promise<Built>> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back([this, &task, config, done] { done->set_value(build_now(task, config)); });
  }
  work_ready_.notify_one();
}

Built LocalBuilder::build_now(const compiler::Task& task, const space::Config& config) {
  Built b;
  const std::string key = task.workload().str() + "|" + task.target().str() + "|" + std::to_string(config.index());
  if (cache_limit_ > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_index_.find(key);
    if (it != cache_index_.end()) {
      cache_.splice(cache_.begin(), cache_, it->second);
      b.lib = it->second->second;
      b.cached = true;
      ++cache_hits_;
      return b;
    }
  }
  Placement where = cores_ ? Placement{{}, cores_->takes_turns()} : placement_ ? placement_() : Placement{{}, true};
  if (!cores_) runtime::pin_this_thread(where.cpus.empty() ? all_cpus_ : where.cpus);
  BuildTurn job_turn(cores_.get());
  runtime::HostLock turn(where.hold_timing_lock ? timing_lock_ : "", runtime::HostLock::Mode::Shared);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    b.lib = task.build_shared_library(config);
  } catch (const std::exception& e) {
    b.error = e.what();
  }
  b.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (cache_limit_ > 0 && b.error.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!cache_index_.count(key)) {
      cache_.emplace_front(key, b.lib);
      cache_index_[key] = cache_.begin();
      cache_size_ += static_cast<int64_t>(b.lib.bytes.size());
      while (cache_size_ > cache_limit_ && !cache_.empty()) {
        cache_size_ -= static_cast<int64_t>(cache_.back().second.bytes.size());
        cache_index_.erase(cache_.back().first);
        cache_.pop_back();
      }
    }
  }
  return b;
}

}  // namespace tf::tuner

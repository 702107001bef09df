// What JobManager keeps of a job while its thread runs it, shared by the files that run jobs
// (job_manager.cc: one workload after another; scheduled_job.cc: a model's workloads under one
// budget). Private to the tracker.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "tracker/job_manager.h"

namespace tf::tracker {

struct JobManager::Run {
  using Clock = std::chrono::steady_clock;
  v1::Job job;  // guarded by JobManager::mu_
  uint64_t version = 1;
  bool finished = false;
  bool final_state_stored = false;  // the db holds how it ended: it may be forgotten here
  bool cancelled = false;
  std::atomic<bool> stop{false};
  std::thread thread;
  Clock::time_point started = Clock::now();
  Clock::time_point persisted;
  int64_t trials_at_start = 0;
  // The job's own connection, opened and holding the job's claim before its thread starts (a
  // resumed job); else the thread opens it.
  std::unique_ptr<db::Database> db;
};

template <typename F>
void JobManager::change(const std::shared_ptr<Run>& run, F&& f) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    f(run->job);
    run->job.set_updated_ms(db::now_ms());
    ++run->version;
  }
  changed_.notify_all();
}

}  // namespace tf::tracker

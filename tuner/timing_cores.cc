#include "tuner/timing_cores.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/thread_pool.h"

namespace tf::tuner {

namespace {

pid_t this_thread_id() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

}  // namespace

TimingCores::TimingCores(std::vector<int> cpus, int kernel_threads) : all_cpus_(std::move(cpus)) {
  if (kernel_threads < 1 || static_cast<size_t>(kernel_threads) >= all_cpus_.size()) return;  // taking turns
  const auto kernel = static_cast<std::ptrdiff_t>(kernel_threads);
  free_cpus_.assign(all_cpus_.begin(), all_cpus_.end() - kernel);
  kernel_cpus_.assign(all_cpus_.end() - kernel, all_cpus_.end());
}

void TimingCores::place(pid_t tid) const {
  // A thread that already ended has nothing to move; another failure leaves it where it was,
  // which costs timing accuracy, never correctness.
  if (!takes_turns()) runtime::pin_thread(tid, timings_ > 0 ? free_cpus_ : all_cpus_);
}

void TimingCores::build_begin() {
  if (!takes_turns()) return;
  std::unique_lock<std::mutex> lock(mu_);
  turn_changed_.wait(lock, [this] { return timings_ == 0; });
  ++builds_;
}

void TimingCores::build_end() {
  if (!takes_turns()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    --builds_;
  }
  turn_changed_.notify_all();
}

void TimingCores::add_builder() {
  std::lock_guard<std::mutex> lock(mu_);
  const pid_t tid = this_thread_id();
  builders_.push_back(tid);
  place(tid);
}

void TimingCores::remove_builder() {
  std::lock_guard<std::mutex> lock(mu_);
  builders_.erase(std::remove(builders_.begin(), builders_.end(), this_thread_id()), builders_.end());
}

void TimingCores::timing_begin() {
  std::unique_lock<std::mutex> lock(mu_);
  if (timings_++ == 0) {
    for (pid_t tid : builders_) place(tid);
  }
  turn_changed_.wait(lock, [this] { return builds_ == 0; });
}

int TimingCores::timings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return timings_;
}

void TimingCores::timing_end() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (--timings_ == 0) {
      for (pid_t tid : builders_) place(tid);
    }
  }
  turn_changed_.notify_all();
}

}  // namespace tf::tuner

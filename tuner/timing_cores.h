// The cores of a local job's host, shared between its builds and its timings, so that no build
// ever runs on a core a kernel is being timed on:
//  - when the kernel's threads leave CPUs free, its worker is pinned to the last `kernel_threads`
//    CPUs; between timings the builders use every CPU, and while a kernel is timed they are moved
//    (sched_setaffinity, at once, mid-build) onto the CPUs it leaves free: no timing waits;
//  - when the kernel needs every CPU, builds and timings take turns: a timing waits for the builds
//    in progress, and no build starts while a timing waits or runs (so a stream of builds cannot
//    starve the timings, as shared holders of a file lock can starve the exclusive one).
// Another process's timings are kept apart by the host-wide lock (runtime/host_lock.h).
#pragma once

#include <condition_variable>
#include <mutex>
#include <vector>

#include <sys/types.h>

namespace tf::tuner {

class TimingCores {
 public:
  // `cpus`: the CPUs this process may use.
  TimingCores(std::vector<int> cpus, int kernel_threads);

  // True: builds and timings take turns (the kernel leaves no CPU free).
  bool takes_turns() const { return free_cpus_.empty(); }
  // Where the worker is pinned (empty: taking turns, it is not).
  const std::vector<int>& kernel_cpus() const { return kernel_cpus_; }
  const std::vector<int>& free_cpus() const { return free_cpus_; }

  // The calling thread is a builder: confined now if a timing is in progress.
  void add_builder();
  void remove_builder();
  // Around each build: taking turns, waits while a timing waits or runs; otherwise nothing.
  void build_begin();
  void build_end();
  void timing_begin();
  void timing_end();
  // Timings waiting or running.
  int timings() const;

 private:
  void place(pid_t tid) const;  // with mu_ held

  std::vector<int> all_cpus_, kernel_cpus_, free_cpus_;
  mutable std::mutex mu_;
  std::condition_variable turn_changed_;
  std::vector<pid_t> builders_;
  int timings_ = 0;  // waiting or running
  int builds_ = 0;   // in progress, counted when taking turns
};

// RAII: a build's or a timing's turn, or a builder thread's life, for the scope; with no
// TimingCores, nothing is held.
template <void (TimingCores::*Begin)(), void (TimingCores::*End)()>
class TimingCoresTurn {
 public:
  explicit TimingCoresTurn(TimingCores* cores) : cores_(cores) {
    if (cores_) (cores_->*Begin)();
  }
  ~TimingCoresTurn() {
    if (cores_) (cores_->*End)();
  }
  TimingCoresTurn(const TimingCoresTurn&) = delete;
  TimingCoresTurn& operator=(const TimingCoresTurn&) = delete;

 private:
  TimingCores* cores_;
};
using BuildTurn = TimingCoresTurn<&TimingCores::build_begin, &TimingCores::build_end>;
using BuilderThread = TimingCoresTurn<&TimingCores::add_builder, &TimingCores::remove_builder>;
using TimingTurn = TimingCoresTurn<&TimingCores::timing_begin, &TimingCores::timing_end>;

}  // namespace tf::tuner

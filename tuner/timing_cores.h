// The cores of a local job's host, shared between its builds and its timings. The timed kernel's
// worker is pinned to the last `kernel_threads` CPUs; between timings the builders use every CPU,
// and while a kernel is timed they are moved (sched_setaffinity, at once, mid-build) onto the CPUs
// the kernel leaves free. So no build ever shares a core with a timed kernel, and no timing waits
// for a build to end. Another process's timings are kept apart by the host-wide lock as before.
#pragma once

#include <mutex>
#include <vector>

#include <sys/types.h>

namespace tf::tuner {

class TimingCores {
 public:
  // `cpus`: the CPUs this process may use. Needs kernel_threads < cpus.size() (see possible()).
  TimingCores(std::vector<int> cpus, int kernel_threads);
  static bool possible(const std::vector<int>& cpus, int kernel_threads);

  const std::vector<int>& kernel_cpus() const { return kernel_cpus_; }
  const std::vector<int>& free_cpus() const { return free_cpus_; }

  // The calling thread is a builder: confined now if a timing is in progress.
  void add_builder();
  void remove_builder();
  void timing_begin();
  void timing_end();

  // RAII: the builders are confined for the scope.
  class Timing {
   public:
    explicit Timing(TimingCores* cores) : cores_(cores) {
      if (cores_) cores_->timing_begin();
    }
    ~Timing() {
      if (cores_) cores_->timing_end();
    }
    Timing(const Timing&) = delete;
    Timing& operator=(const Timing&) = delete;

   private:
    TimingCores* cores_;
  };

 private:
  void place(pid_t tid) const;  // with mu_ held

  std::vector<int> all_cpus_, kernel_cpus_, free_cpus_;
  mutable std::mutex mu_;
  std::vector<pid_t> builders_;
  int timings_ = 0;
};

}  // namespace tf::tuner

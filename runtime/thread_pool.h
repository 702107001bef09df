// The process-wide thread pool that runs kernels' parallel loops (no OpenMP: a board links only
// this small runtime). tf_runtime_parallel_for (kernel_abi.h) is its C entry point.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tf::runtime {

// Threads that run a parallel loop, the caller included. Default: the hardware's thread count.
// n < 1 counts as 1. Resizing waits for a running loop to finish.
void set_num_threads(int n);
int num_threads();

// Pins the pool's threads to these CPUs, the caller's thread to the first (a board sharing a host
// with others pins itself to its own cores). Returns false if the OS refused.
bool pin_threads_to_cpus(const std::vector<int>& cpus);

// The CPUs the calling thread may run on (sched_getaffinity); never empty.
std::vector<int> usable_cpus();
// Pins the calling thread alone to these CPUs. Returns false if the OS refused.
bool pin_this_thread(const std::vector<int>& cpus);
// The same for another thread of this process (its kernel thread id), at once even mid-run.
bool pin_thread(pid_t thread_id, const std::vector<int>& cpus);
// "0,2,3": how CPU lists are written in options and messages.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace tf::runtime

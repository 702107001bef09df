// What one thread of this CPU reaches in FP32 multiply-adds, measured: the ceiling against which a
// reported timing is judged (runtime/timing_check.h's speed_problem). A board measures it once at
// start on the CPU its kernels run on, under the host-wide timing lock, and reports it with itself.
#pragma once

#include <string>

namespace tf::runtime {

// GFLOPS of one thread running the widest FMA this CPU has (AVX-512, AVX2+FMA or NEON; SSE
// multiply and add otherwise), the best of a few runs of ~10 ms of the thread's own CPU time (so a
// host busy with other work does not lower it). `cpu` >= 0 pins the measuring thread
// there for the while; `timing_lock` (a path, or empty) is held meanwhile.
double measure_peak_gflops(int cpu = -1, const std::string& timing_lock = "");

}  // namespace tf::runtime

// The parent's half of measuring: a worker process (runtime/worker/measure_worker_main.cc, linking
// only this runtime) that loads each candidate and times it, so that a kernel which crashes or
// hangs takes down only the worker. The worker is replaced when it dies, overruns its time or
// breaks the protocol (runtime/worker_protocol.h), and a library from outside gets a worker of its
// own (measure_foreign).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/measure.h"
#include "runtime/worker_protocol.h"

namespace tf::runtime {

class WorkerChannel;

// Enough for the largest workloads' buffers several times over; a kernel that allocates beyond it
// fails its trial instead of pushing the board into swap.
constexpr uint64_t kDefaultWorkerMemoryMb = 16384;
// The worker's exit status when it could not confine itself: it measures nothing unconfined.
constexpr int kWorkerCannotSandbox = 3;

class MeasureWorker {
 public:
  // `worker_path`: the worker executable; `cpus`: cores to pin the worker to (empty: any);
  // `threads`: threads of the worker's pool (0: one per CPU it may use).
  explicit MeasureWorker(std::string worker_path, std::vector<int> cpus = {}, int threads = 0);
  ~MeasureWorker();
  MeasureWorker(const MeasureWorker&) = delete;
  MeasureWorker& operator=(const MeasureWorker&) = delete;

  // The workload every following measure() runs; kept and re-sent to a replacement worker.
  void setup(const WorkloadSetup& setup);
  // Never throws for anything the kernel does: crashes, hangs, wrong answers and protocol
  // violations are statuses. opts.timeout_s bounds the worker's own time; its wait for the timing
  // lock is not counted.
  MeasureResult measure(const std::vector<uint8_t>& library, const std::string& entry, const MeasureOptions& opts);
  // The same for a library this process did not build (a Compare caller's): measured in a worker
  // started for it with these settings and ended after it. Code a library leaves running (a
  // constructor that keeps answering the pipe) thus never sees another kernel's request.
  MeasureResult measure_foreign(const std::vector<uint8_t>& library, const std::string& entry,
                                const MeasureOptions& opts);
  // A command the worker runs under, e.g. an emulator for a board built for another architecture
  // on a host without binfmt ({"qemu-aarch64-static"}). Searched on PATH.
  void set_launcher(std::vector<std::string> launcher) { launcher_ = std::move(launcher); }
  // The worker confines itself (runtime/sandbox.h) before it loads any kernel, with an address-space
  // limit of `memory_mb` (0: none). Off only for an emulator that cannot filter system calls.
  void set_sandbox(bool enabled, uint64_t memory_mb) {
    sandbox_ = enabled;
    memory_mb_ = memory_mb;
  }
  // Starts the worker once to see it confine itself fully (file rules included) with this timing
  // lock readable: "" when it can, otherwise what it said.
  std::string sandbox_problem(const std::string& timing_lock) const;
  int restarts() const { return restarts_; }
  pid_t pid() const { return pid_; }  // -1 while no worker runs

  // The worker next to this executable (tunefarm-measure-worker), or $TUNEFARM_MEASURE_WORKER.
  static std::string default_path();

 private:
  void start(const std::string& timing_lock);
  void stop();  // kill -9 and reap
  void limit_cpu_time(double timeout_s);
  std::string reap(bool kill_first);  // how the worker ended, e.g. "killed by signal 11 (Segmentation fault)"
  MeasureResult failed(MeasureStatus status, const std::string& why, bool kill);
  MeasureResult await_result(const MeasureOptions& opts);
  std::vector<std::string> command(const std::vector<std::string>& options) const;

  std::string path_;
  std::vector<int> cpus_;
  int threads_ = 0;
  std::vector<std::string> launcher_;
  bool sandbox_ = true;
  uint64_t memory_mb_ = kDefaultWorkerMemoryMb;
  std::optional<WorkloadSetup> setup_;
  bool setup_sent_ = false;
  pid_t pid_ = -1;
  std::string timing_lock_;  // the one the running worker may open
  std::unique_ptr<WorkerChannel> channel_;
  int restarts_ = 0;
};

// The variables a worker process starts with, out of `parent` (an environ): a short allowlist, so
// that a kernel never sees the board's token or other secrets.
std::vector<std::string> worker_environment(const char* const* parent);

}  // namespace tf::runtime

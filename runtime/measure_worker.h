// The parent's half of measuring: a worker process (runtime/worker/measure_worker_main.cc, linking
// only this runtime) that loads each candidate and times it, so that a kernel which crashes or
// hangs takes down only the worker. The worker is replaced when it dies or overruns its time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/measure.h"

namespace tf::runtime {

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
  // Never throws for anything the kernel does: crashes, hangs and wrong answers are statuses.
  // opts.timeout_s bounds the worker's own time; its wait for the timing lock is not counted.
  MeasureResult measure(const std::vector<uint8_t>& library, const std::string& entry, const MeasureOptions& opts);
  // A command the worker runs under, e.g. an emulator for a board built for another architecture
  // on a host without binfmt ({"qemu-aarch64-static"}). Searched on PATH.
  void set_launcher(std::vector<std::string> launcher) { launcher_ = std::move(launcher); }
  // The worker confines itself (runtime/sandbox.h) before it loads any kernel, with an address-space
  // limit of `memory_mb` (0: none). Off only for an emulator that cannot filter system calls.
  void set_sandbox(bool enabled, uint64_t memory_mb) {
    sandbox_ = enabled;
    memory_mb_ = memory_mb;
  }
  // Starts the worker once to see it confine itself: "" when it can, otherwise what it said.
  std::string sandbox_problem() const;
  int restarts() const { return restarts_; }
  pid_t pid() const { return pid_; }  // -1 while no worker runs

  // The worker next to this executable (tunefarm-measure-worker), or $TUNEFARM_MEASURE_WORKER.
  static std::string default_path();

 private:
  void start();
  void stop();  // kill -9 and reap
  void limit_cpu_time(double timeout_s);
  std::string reap(bool kill_first);  // how the worker ended, e.g. "killed by signal 11 (Segmentation fault)"

  std::string path_;
  std::vector<int> cpus_;
  int threads_ = 0;
  std::vector<std::string> launcher_;
  bool sandbox_ = true;
  uint64_t memory_mb_ = kDefaultWorkerMemoryMb;
  std::optional<WorkloadSetup> setup_;
  bool setup_sent_ = false;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  int restarts_ = 0;
};

// The variables a worker process starts with, out of `parent` (an environ): a short allowlist, so
// that a kernel never sees the board's token or other secrets.
std::vector<std::string> worker_environment(const char* const* parent);

// Message encoding shared with the worker executable.
namespace worker_protocol {
// kLockWaiting and kLockHeld (empty payloads) come before a kResult: the parent stops counting the
// candidate's time while the worker waits for the host-wide timing lock. kSandboxViolation (the
// call's number, then its name) is the worker's last word when a kernel tried a forbidden call.
enum Kind : uint32_t { kSetup = 1, kMeasure = 2, kResult = 3, kLockWaiting = 4, kLockHeld = 5, kSandboxViolation = 6 };
std::vector<uint8_t> encode_setup(const WorkloadSetup& s);
WorkloadSetup decode_setup(const std::vector<uint8_t>& b);
std::vector<uint8_t> encode_measure(const std::vector<uint8_t>& library, const std::string& entry, const MeasureOptions& o);
void decode_measure(const std::vector<uint8_t>& b, std::vector<uint8_t>* library, std::string* entry, MeasureOptions* o);
std::vector<uint8_t> encode_result(const MeasureResult& r);
// A successful result whose timings fail runtime/timing_check.h decodes as a RuntimeError saying so.
MeasureResult decode_result(const std::vector<uint8_t>& b);
}  // namespace worker_protocol

}  // namespace tf::runtime

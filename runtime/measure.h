// The measurement protocol, shared by local tuning and the boards: run a kernel on deterministic
// random inputs, check its output against the workload's reference, then time it (warm-up, then
// `repeat` timings of `number` back-to-back runs, `number` grown until one timing lasts
// min_repeat_ms, extrapolated from a calibrating timing an eighth as long), under a host-wide lock so that two
// measurers on one host never time at once. No LLVM here: a board links this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kernel_abi.h"
#include "runtime/last_level_cache.h"
#include "runtime/random_fill.h"

namespace tf::runtime {

enum class MeasureStatus : int32_t {
  Ok = 0,
  LoadError = 1,     // the library did not load (a build problem)
  RuntimeError = 2,  // the kernel crashed the worker, or returned an error status
  Timeout = 3,
  WrongAnswer = 4,
};
const char* measure_status_name(MeasureStatus s);

struct TensorSpec {
  std::vector<int64_t> shape;
  int32_t dtype_code = TF_DTYPE_FLOAT;
  int32_t dtype_bits = 32;
  FillRange fill;  // an input's values (random_fill.h); unused for the output
  int64_t num_elements() const;
  size_t bytes() const { return static_cast<size_t>(num_elements()) * static_cast<size_t>(dtype_bits / 8); }
};

// What a worker needs once per workload: the kernel's arguments (inputs first, the output last),
// the seed the inputs come from (random_fill.h), and the reference output with a per-element
// tolerance, computed once by whoever has the compiler.
struct WorkloadSetup {
  std::vector<TensorSpec> args;
  int num_inputs = 0;
  uint64_t seed = 42;
  std::vector<float> expected, tolerance;  // empty: no check
};

// Throws std::invalid_argument naming the argument when num_inputs is not below the number of
// arguments, an argument's type is not one a kernel takes, an input's fill range does not fit its
// type, or the reference is not one value and tolerance per output element: a setup from another
// process is checked before anything is allocated from it.
void check_workload_args(const WorkloadSetup& s);

// Whether a kernel's output element matches the reference: within the tolerance, or the same
// special value (a NaN where the reference is NaN, as log(-1); an infinity where it is that one).
inline bool matches_reference(double got, double expected, double tolerance) {
  const double err = got - expected;
  return (err <= tolerance && -err <= tolerance) || got == expected || (got != got && expected != expected);
}

// Which inputs each timed run reads cold (runtime/cold_inputs.h): none (every run after the first
// finds its inputs cached by the run before), the weights (what a model's layers find), or all.
enum class ColdInputs : int32_t { Off = 0, Weights = 1, All = 2 };
const char* cold_inputs_name(ColdInputs c);  // "off", "weights", "all"
bool parse_cold_inputs(const std::string& text, ColdInputs* out);
// The same modes as a measurement's timing, the one spelling the database, its export records and
// `--timing` use: "warm", "cold-weights", "cold-all".
const char* timing_name(ColdInputs c);
bool parse_timing(const std::string& text, ColdInputs* out);

struct MeasureOptions {
  int repeat = 3;
  int number = 0;  // runs per timing; 0: grow until min_repeat_ms
  double min_repeat_ms = 20;
  bool flush_cache = false;  // write a buffer larger than the LLC before each timing
  double cooldown_ms = 0;    // pause after a candidate, to let clocks settle
  ColdInputs cold_inputs = ColdInputs::Off;
  double timeout_s = 10;  // hard limit per candidate (enforced by the parent), not counting the wait for the lock
  // Host-wide flock; empty: none. A lock that cannot be taken is not silently skipped: the
  // candidate fails saying so (a timing beside another measurer's is not what the output claims).
  std::string timing_lock = "/tmp/tunefarm-timing.lock";
};

// Upper bounds of the measure options: a kernel may run this long at most, a timing take this long.
constexpr double kMaxTimeoutS = 3600;
constexpr double kMaxRepeatMs = 60000;  // min_repeat_ms and cooldown_ms
constexpr int kMaxRepeat = 1000;
constexpr int kMaxNumber = 1 << 24;  // runs per timing

// Why `o` cannot be measured with, naming the field ("timeout_s: ..."); empty when every field is
// in range. Every path on which options arrive from outside calls it (job specs, Compare, `tune`,
// and MeasureWorker as the last guard): unchecked, a timeout of 1e12 s overflowed the worker's
// milliseconds and a hung kernel held the host's timing lock for good.
std::string measure_options_error(const MeasureOptions& o);

struct MeasureResult {
  MeasureStatus status = MeasureStatus::Ok;
  std::vector<double> costs;  // seconds per run, one per repeat
  int number = 0;
  std::string error;
};

// The in-process half (what a worker process runs): owns the argument buffers of one workload.
class KernelBench {
 public:
  // `llc`: what cold timings size their copies by (read before a worker confines itself).
  explicit KernelBench(const WorkloadSetup& setup, LastLevelCache llc = last_level_cache());
  ~KernelBench();
  KernelBench(const KernelBench&) = delete;
  KernelBench& operator=(const KernelBench&) = delete;
  // Checks `fn`'s output, then times it. The caller holds the host-wide timing lock (the worker
  // takes it before it loads the kernel, so no kernel code runs before the lock is held).
  MeasureResult measure(TFKernelFn fn, const MeasureOptions& opts);
  // The argument sets timed runs rotate through: 1 when warm, K for the last cold timing.
  int rotation() const { return static_cast<int>(sets_.size()); }

 private:
  // Sets up sets_ for `mode`: the arguments as they are, then K-1 sets whose rotated inputs are
  // copies of their own. Throws std::runtime_error when the copies would exceed kMaxColdBytes.
  void prepare_rotation(ColdInputs mode);
  void* allocate(size_t bytes);

  WorkloadSetup setup_;
  LastLevelCache llc_;
  std::vector<void*> data_, copies_;
  std::vector<std::vector<TFBuffer>> sets_;  // sets_[0]: the arguments themselves
  ColdInputs prepared_ = ColdInputs::Off;
  std::vector<char> flush_;
};

}  // namespace tf::runtime

// Where a regression run measures: kernels measured in turn, round after round, on one machine.
// LocalComparer uses a worker process on this host; the CLI's fleet comparer asks the tracker to do
// the same on one board of a key (the Compare call). Both take ready-built libraries, so the
// baseline's stored binary and the current compiler's build meet on equal terms.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ops/operator.h"
#include "runtime/measure.h"
#include "tuner/interleave.h"

namespace tf::regress {

// The run itself failed (no board, the board left, the worker cannot start): exit 2, not a verdict.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KernelBinary {
  std::string name;  // "baseline", "current"
  std::vector<uint8_t> library;
  std::string entry_symbol;
};

// Status, error and one cost per round (fewer when it failed).
using ComparedKernel = tuner::KernelTimings;

struct Comparison {
  std::string device;                   // the board or host every round ran on
  std::vector<ComparedKernel> kernels;  // in the order given
};

class Comparer {
 public:
  virtual ~Comparer() = default;
  virtual std::string target() const = 0;      // what libraries must be built for
  virtual std::string device_key() const = 0;  // where best configs and baselines are filed
  virtual std::string where() const = 0;       // for the output: "local worker, ..." / "board h:p of key k"
  virtual std::string timing_isolation() const = 0;
  // Each round measures every kernel once (one timing, `opts.repeat` ignored), in the given order.
  // A kernel that fails is measured no further. Throws RunError when the measuring itself fails.
  virtual Comparison compare(const ops::Workload& workload, const std::vector<KernelBinary>& kernels, int rounds,
                             const runtime::MeasureOptions& opts) = 0;
};

class LocalComparer : public Comparer {
 public:
  LocalComparer(std::string target, int threads, std::string worker_path = "");
  std::string target() const override { return target_; }
  std::string device_key() const override;
  std::string where() const override;
  std::string timing_isolation() const override;
  Comparison compare(const ops::Workload& workload, const std::vector<KernelBinary>& kernels, int rounds,
                     const runtime::MeasureOptions& opts) override;

 private:
  std::string target_;
  int threads_;
  std::string worker_path_;
  std::string timing_lock_;
};

}  // namespace tf::regress

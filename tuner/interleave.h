// Kernels measured in turn, round after round, on one Measurer: the protocol of a side-by-side
// comparison (CI regression runs, locally and through the tracker's Compare call). One timing per
// kernel and turn; a kernel's runs per timing are calibrated on its first turn and then kept, so
// every timing of it covers the same work; odd rounds run the kernels in reverse order, so none
// always goes first. A kernel that fails is measured no further; the others go on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tuner/measurer.h"

namespace tf::tuner {

struct KernelToCompare {
  std::vector<uint8_t> library;
  std::string entry_symbol;
};

struct KernelTimings {
  runtime::MeasureStatus status = runtime::MeasureStatus::Ok;
  std::string error;          // "round N: ..." when it failed
  std::vector<double> costs;  // seconds per run, one per round it ran
};

struct Interleaved {
  std::string device;                  // who measured the first turn
  std::vector<KernelTimings> kernels;  // in the order given
  std::string aborted;                 // non-empty: why the rounds ended early (not a kernel's fault)
};

// `on_first_device` is told who measured the first turn (the tracker binds the rest to that board);
// `cancelled` is asked while waiting and ends the rounds when it turns true.
Interleaved measure_interleaved(Measurer& measurer, const std::vector<KernelToCompare>& kernels, int rounds,
                                const runtime::MeasureOptions& opts,
                                const std::function<void(const std::string&)>& on_first_device = {},
                                const std::function<bool()>& cancelled = {});

}  // namespace tf::tuner

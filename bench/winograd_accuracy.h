// How far a Winograd kernel (conv2d_winograd_nchwc and its epilogues) lands from the direct
// convolution on a real transformed weight: the benchmark's inputs are random, and a random U is
// no filter's transform, so the op's own reference is Winograd arithmetic in double; this says
// what a model loses by the algorithm, per layer and tile size.
#pragma once

#include "compiler/compiler.h"

namespace tf::bench {

struct WinogradAccuracy {
  double max_abs_error = 0;   // kernel vs the direct convolution, over the real outputs
  double max_abs_output = 0;  // the direct output's largest magnitude
  bool within_bound = false;  // every element within the Winograd bound plus the direct one
  double relative() const { return max_abs_output > 0 ? max_abs_error / max_abs_output : 0; }
};

// Data and OIHW weight uniform in [-1, 1) (bias and residual too), the weight transformed by
// winograd_weight_transform, the kernel built from `cfg` and run once. Throws what building throws.
WinogradAccuracy winograd_error_vs_direct(const compiler::Task& task, const space::Config& cfg);

}  // namespace tf::bench

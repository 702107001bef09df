// The kernels that can each run the calls of one node: a blocked 3x3 stride-1 convolution runs as the
// direct conv2d_nchwc* kernel or as a Winograd conv2d_winograd_nchwc* kernel (F(m x m, 3x3): fewer
// multiplies, more additions and memory traffic; which wins depends on the layer and the board).
// A model job tunes every alternative (a group of the task scheduler), and plan_graph runs the one
// the database measured fastest.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "compiler/ops/operator.h"

namespace tf::graph {

// Every workload that can run the calls of `w`, the direct one first, then the Winograd ones by
// tile; [w] when it has no alternative. Any member of a family gives the same list.
std::vector<ops::Workload> kernel_alternatives(const ops::Workload& w);

// The one a build runs when none was measured: by the layer's output size, from default configs'
// speeds (Winograd F(4x4) on large images, F(2x2) on middling ones, direct on small ones).
size_t default_alternative(const std::vector<ops::Workload>& alternatives);

// Which of `alternatives` a build runs: the fastest by `measured_seconds` (nullopt: not measured);
// with none measured, default_alternative.
size_t choose_alternative(const std::vector<ops::Workload>& alternatives,
                          const std::function<std::optional<double>(const ops::Workload&)>& measured_seconds);

}  // namespace tf::graph

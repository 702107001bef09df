// What plan_graph may decide differently from one build to another: the layouts, and which of a
// node's alternative kernels runs (by what the database measured).
#pragma once

#include <functional>
#include <optional>

#include "compiler/ops/operator.h"

namespace tf::graph {

struct PlanOptions {
  // Blocked (NCHWc) activations between convolutions, conv and dense weights packed at build time.
  // Off: every conv stays on plain NCHW, every dense weight as [K, N] (what the test-only evaluator
  // reads).
  bool blocked_layouts = true;
  // Seconds per call of a workload's best measured config on the build's target (the database), or
  // nullopt. A node that can run as several kernels (kernel_alternatives.h) runs the fastest
  // measured one; with none measured, the default one (default_alternative).
  std::function<std::optional<double>(const ops::Workload&)> measured_seconds;
};

}  // namespace tf::graph

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
  // Channel blocks chosen for the whole graph from measured_seconds (passes/block_plan.h); off:
  // each conv's own (16 out, its input read as it is), whatever was measured.
  bool graph_layouts = true;
};

}  // namespace tf::graph

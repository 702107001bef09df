// Where a compiled model's time goes, by what each step's node is in the planned graph: tuned
// kernels (the tasks a model job tunes), layout transforms (layout_to_nchwc / layout_from_nchwc),
// and the other untuned nodes (pooling, softmax, normalization, elementwise, data movement).
#pragma once

#include <map>
#include <string>

#include "graph/graph.h"
#include "runtime/model/model_file.h"
#include "runtime/model/timing.h"

namespace tf::graph {

struct LatencyBreakdown {
  double tuned_ms = 0;    // steps of nodes with a tunable kernel
  double layout_ms = 0;   // layout transforms
  double untuned_ms = 0;  // everything else
  // Per tunable kernel (ops::Workload::str()): the median seconds of one call inside the run,
  // averaged over the nodes that call it.
  std::map<std::string, double> kernel_s_per_call;
  double total_ms() const { return tuned_ms + layout_ms + untuned_ms; }
};

// The per-step medians of `timing` (of `model`, built from `planned`) summed by kind.
LatencyBreakdown latency_breakdown(const Graph& planned, const runtime::model::ModelFile& model,
                                   const runtime::model::ModelTiming& timing);

}  // namespace tf::graph

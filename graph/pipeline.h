// The passes that turn an imported graph into a planned one, in order (graph/pipeline.cc).
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace tf::graph {

// The pass names, in the order plan_graph runs them.
std::vector<std::string> pipeline_pass_names();
// Runs the passes; after each the graph is checked (every value defined before it is read, shapes
// known), and a failure names the pass.
struct PlanOptions {
  // Blocked (NCHWc) activations between convolutions, conv and dense weights packed at build time.
  // Off: every conv stays on plain NCHW, every dense weight as [K, N] (what the test-only evaluator
  // reads).
  bool blocked_layouts = true;
};
Graph plan_graph(const Graph& imported, const PlanOptions& options = {});

}  // namespace tf::graph

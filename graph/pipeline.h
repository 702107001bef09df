// The passes that turn an imported graph into a planned one, in order (graph/pipeline.cc).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/plan_options.h"

namespace tf::graph {

// The pass names, in the order plan_graph runs them.
std::vector<std::string> pipeline_pass_names();
// Called after each pass (once checked) with its name and the graph it left: what
// `tunefarm model inspect --dump-after` prints.
using GraphPassObserver = std::function<void(const std::string& pass, const Graph& g)>;
// Runs the passes; after each the graph is checked (every value defined before it is read, shapes
// known), and a failure names the pass.
Graph plan_graph(const Graph& imported, const PlanOptions& options = {}, const GraphPassObserver& after_pass = {});

}  // namespace tf::graph

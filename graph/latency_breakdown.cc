#include "graph/latency_breakdown.h"

#include <map>

#include "graph/tasks.h"
#include "support/stats.h"

namespace tf::graph {

LatencyBreakdown latency_breakdown(const Graph& planned, const runtime::model::ModelFile& model,
                                   const runtime::model::ModelTiming& timing) {
  std::map<std::string, const Node*> by_name;
  for (const Node& n : planned.nodes) by_name[n.name] = &n;
  LatencyBreakdown b;
  for (size_t s = 0; s < model.steps.size() && s < timing.per_step.size(); ++s) {
    const double ms = median(timing.per_step[s]) * 1e3;
    const auto it = by_name.find(model.steps[s].node);
    if (it != by_name.end() && node_kernel(planned, *it->second))
      b.tuned_ms += ms;
    else if (it != by_name.end() && it->second->op.rfind("layout_", 0) == 0)
      b.layout_ms += ms;
    else
      b.untuned_ms += ms;
  }
  return b;
}

}  // namespace tf::graph

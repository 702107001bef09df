#include "graph/latency_breakdown.h"

#include <algorithm>
#include <map>

#include "graph/tasks.h"
#include "support/stats.h"

namespace tf::graph {

LatencyBreakdown latency_breakdown(const Graph& planned, const runtime::model::ModelFile& model,
                                   const runtime::model::ModelTiming& timing) {
  std::map<std::string, const Node*> by_name;
  for (const Node& n : planned.nodes) by_name[n.name] = &n;
  LatencyBreakdown b;
  std::map<std::string, std::pair<double, int>> per_call;  // workload -> sum of per-call seconds, nodes
  for (size_t s = 0; s < model.steps.size() && s < timing.per_step.size(); ++s) {
    const double ms = median(timing.per_step[s]) * 1e3;
    const auto it = by_name.find(model.steps[s].node);
    const auto kernel = it != by_name.end() ? node_kernel(planned, *it->second) : std::nullopt;
    if (kernel) {
      b.tuned_ms += ms;
      auto& [sum, nodes] = per_call[kernel->workload.str()];
      sum += ms * 1e-3 / static_cast<double>(std::max<int64_t>(1, kernel->calls));
      ++nodes;
    } else if (it != by_name.end() && it->second->op.rfind("layout_", 0) == 0)
      b.layout_ms += ms;
    else
      b.untuned_ms += ms;
  }
  for (const auto& [key, sum_nodes] : per_call) b.kernel_s_per_call[key] = sum_nodes.first / sum_nodes.second;
  return b;
}

}  // namespace tf::graph

#include "bench/conv2d_targets.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "support/stats.h"

namespace tf::bench {

namespace {

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// The set's layers measured at `threads`, each with the variant that made its ratio.
void add_layer_set_targets(const Conv2dLayerSet& set, int threads, const std::vector<Conv2dComparison>& all,
                           std::vector<Conv2dTarget>* out) {
  std::vector<double> ratios;
  std::map<std::string, int> by_variant;
  std::string worst_layer;
  double worst = 0;
  for (const auto& c : all) {
    if (c.threads != threads ||
        std::find(set.workloads.begin(), set.workloads.end(), c.workload) == set.workloads.end())
      continue;
    ratios.push_back(c.ratio());
    ++by_variant[c.faster_variant];
    if (worst_layer.empty() || c.ratio() < worst) worst = c.ratio(), worst_layer = c.workload;
  }
  const bool complete = !set.workloads.empty() && ratios.size() == set.workloads.size();
  std::string variants;
  for (const auto& [variant, count] : by_variant)
    variants += (variants.empty() ? "" : ", ") + variant + " on " + std::to_string(count);
  const std::string scope = set.label + " at " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") +
                            " (" + std::to_string(ratios.size()) + " of " + std::to_string(set.workloads.size()) +
                            " layers" + (variants.empty() ? "" : "; faster variant: " + variants) + ")";
  const std::string all_layers = complete ? "" : ", over all " + std::to_string(set.workloads.size()) + " layers";
  const double g = geomean(ratios);
  out->push_back({"geomean tuned / oneDNN GFLOPS, " + scope, g, ">= " + fixed2(set.geomean_goal) + all_layers,
                  complete && g >= set.geomean_goal});
  if (set.worst_goal > 0) {
    out->push_back(
        {"worst layer tuned / oneDNN GFLOPS" + (worst_layer.empty() ? "" : " (" + worst_layer + ")") + ", " + scope,
         worst, ">= " + fixed2(set.worst_goal) + all_layers, complete && worst >= set.worst_goal});
  }
}

}  // namespace

std::vector<Conv2dTarget> conv2d_targets(const Conv2dTargetInputs& in) {
  std::vector<Conv2dTarget> out;
  for (const auto& set : in.layer_sets) {
    for (int threads : in.threads) add_layer_set_targets(set, threads, in.comparisons, &out);
  }
  if (in.compile_ms.empty()) {
    out.push_back({"median compile ms per candidate (not measured in this run)", 0, "< 100", false});
  } else {
    const double m = median(in.compile_ms);
    out.push_back({"median compile ms per candidate (" + std::to_string(in.compile_ms.size()) + " candidates)", m,
                   "< 100", m < 100});
  }
  if (in.resnet18_3x3_trials_per_min.empty()) {
    out.push_back(
        {"tuning trials per minute on a ResNet-18 3x3 layer (no such layer tuned in this run)", 0, ">= 100", false});
  } else {
    const double t = median(in.resnet18_3x3_trials_per_min);
    out.push_back({"tuning trials per minute on a ResNet-18 3x3 layer (median of " +
                       std::to_string(in.resnet18_3x3_trials_per_min.size()) + " tuning jobs)",
                   t, ">= 100", t >= 100});
  }
  return out;
}

}  // namespace tf::bench

// The conv2d benchmark's targets, computed from what one run measured: tuned kernels against
// oneDNN on the ResNet-18 layers and the MobileNet depthwise layers, compile time per candidate
// and tuning throughput. A target over a set of layers is met only when every layer of the set was
// measured at that thread count: a partial run says how many it had and is never "met".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tf::bench {

// One workload at one thread count: our faster tuned variant against oneDNN.
struct Conv2dComparison {
  std::string workload;        // "resnet18-c2"
  std::string faster_variant;  // "plain" or "blocked": the one whose tuned GFLOPS are higher
  int threads = 1;
  double tuned_gflops = 0, onednn_gflops = 0;
  double ratio() const { return onednn_gflops > 0 ? tuned_gflops / onednn_gflops : 0; }
};

// A set of layers a target judges: "resnet18" layers, "mobilenet" depthwise layers.
struct Conv2dLayerSet {
  std::string label;                   // "ResNet-18 layers"
  std::vector<std::string> workloads;  // every layer of the set in the workloads file
  double geomean_goal = 0.85;
  double worst_goal = 0;  // 0: no per-layer floor
};

struct Conv2dTargetInputs {
  std::vector<Conv2dComparison> comparisons;
  std::vector<int> threads;  // the thread counts the run asked for
  std::vector<Conv2dLayerSet> layer_sets;
  std::vector<double> compile_ms;                   // per compiled candidate
  std::vector<double> resnet18_3x3_trials_per_min;  // per tuning job on a ResNet-18 3x3 layer
};

struct Conv2dTarget {
  std::string what;
  double value = 0;
  std::string goal;
  bool met = false;
};

std::vector<Conv2dTarget> conv2d_targets(const Conv2dTargetInputs& in);

}  // namespace tf::bench

// The tunable tasks of a planned graph: which compiler/ops kernels it calls, on which workloads, how
// often, and how much of the model's arithmetic each is. What a builder asks of each node, and what a
// model tuning job spends its trials on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_shape.h"
#include "compiler/ops/operator.h"
#include "graph/graph.h"

namespace tf::graph {

// A node that runs a compiler/ops kernel: the workload, the calls per model run (a batched matmul
// calls its dense kernel once per matrix), and which of its inputs are constants (weights a
// builder packs ahead of time), by position.
struct NodeKernel {
  ops::Workload workload;
  std::string shape_text;  // as `tunefarm run --shape` takes it
  int64_t calls = 1;
  std::vector<size_t> constant_inputs;
};

// A Conv or conv2d_* node's extents, from its input, weight and (normalized) attributes.
ops::Conv2dShape conv2d_shape(const Graph& g, const Node& n);

// The node's tunable kernel (conv2d*, conv3d*, depthwise*, dense*, ConvTranspose's conv2d_transpose*), or
// nullopt for a node whose kernel is not tuned (pooling, softmax, fused elementwise...). Throws
// CompileError naming the node when its shape is not a valid workload.
std::optional<NodeKernel> node_kernel(const Graph& g, const Node& n);

struct Task {
  ops::Workload workload;
  std::string shape_text;
  int64_t count = 0;  // kernel calls per model run
  int64_t flops = 0;  // all calls together
  double share = 0;   // of the FLOPs the graph's nodes run
  std::vector<std::string> nodes;
  // Tasks of one group >= 0 are alternative kernels for the same calls (kernel_alternatives.h): the
  // model runs one of them, whichever was measured fastest.
  int group = -1;
};

// The arithmetic of the kernels a planned graph's nodes run (their FLOPs x calls): what a model's
// effective GFLOPS divides by its latency.
int64_t kernel_flops(const Graph& planned);

// One task per distinct workload, with every alternative of each node's kernel; most FLOPs first.
// With `block_alternatives` (a job that chooses layouts for the whole graph, block_plan.h) each
// blocked conv's group also holds its other channel blocks (kernel_alternatives_with_blocks), and
// the layout conversions a plan may place are tasks of count 0 after them: measured (their few
// configs) for the plan's costs, no part of the estimate.
std::vector<Task> tunable_tasks(const Graph& g, bool block_alternatives = false);

}  // namespace tf::graph

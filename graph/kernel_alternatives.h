// The kernels that can each run the calls of one node: a blocked 3x3 stride-1 convolution runs as the
// direct conv2d_nchwc* kernel or as a Winograd conv2d_winograd_nchwc* kernel (F(m x m, 3x3): fewer
// multiplies, more additions and memory traffic; which wins depends on the layer and the board).
// A model job tunes every alternative (a group of the task scheduler), and plan_graph runs the one
// the database measured fastest.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "compiler/ops/operator.h"

namespace tf::graph {

// Every workload that can run the calls of `w`, the direct one first, then the Winograd ones by
// tile; [w] when it has no alternative. Any member of a family gives the same list.
std::vector<ops::Workload> kernel_alternatives(const ops::Workload& w);

// The channel blocks a blocked layout of `channels` may take: 8, 16 and 32 where they divide the
// channels (no padded lanes to compute), and 16 (the default) always.
std::vector<int64_t> channel_blocks(int64_t channels);

// The blocked conv `w` (conv2d_nchwc*, depthwise_nchwc*; a Winograd one as its direct form) with each
// candidate pair of blocks a graph-level layout plan chooses from: (b, b) for the blocks both its
// channel counts allow; an input block outside 8/16/32 (a first layer's 3 channels, read plainly)
// stays, and the output block varies. Smallest block first; [w] for any other op. Any member gives
// the same list.
std::vector<ops::Workload> block_alternatives(const ops::Workload& w);

// kernel_alternatives of each of block_alternatives(w): one group of a model job that chooses the
// layouts for the whole graph.
std::vector<ops::Workload> kernel_alternatives_with_blocks(const ops::Workload& w);

// The conversion of an activation [n, c, h, w] from layout `from` to `to` (a block, or 0: plain
// NCHW): layout_to_nchwc, layout_from_nchwc or layout_reblock_nchwc; from != to.
ops::Workload layout_transform_workload(const std::vector<int64_t>& nchw, int64_t from, int64_t to);

// The conversions a plan over block_alternatives(w) may place around `w`: of its input and of its
// output, between every two of plain and its candidate blocks (what a plan's cost asks the
// database for; measured once each by a model job).
std::vector<ops::Workload> layout_transform_workloads(const ops::Workload& w);

// The one a build runs when none was measured: by the layer's output size, from default configs'
// speeds (Winograd F(4x4) on large images, on middling ones F(2x2) where the target has 32 vector
// registers and F(4x4) where it has 16, direct on small ones).
size_t default_alternative(const std::vector<ops::Workload>& alternatives, int vector_registers = 32);

// Which of `alternatives` a build runs: the fastest by `measured_seconds` (nullopt: not measured);
// with none measured, default_alternative.
size_t choose_alternative(const std::vector<ops::Workload>& alternatives,
                          const std::function<std::optional<double>(const ops::Workload&)>& measured_seconds,
                          int vector_registers = 32);

}  // namespace tf::graph

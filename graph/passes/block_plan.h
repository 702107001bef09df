// The channel blocks of a graph's blocked activations, chosen for the whole graph (after AutoTVM's
// graph tuner and NeoCPU): each blocked conv may run with any pair of blocks block_alternatives
// lists, a value read in another block than it was written in costs a conversion, and the plan is
// the one whose measured kernel times plus conversion times are least (layout_solver.h: a DP along
// chains, exact on residual blocks; a residual read in another block than the conv writes costs
// its conversion too). What plan_layouts then builds.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "compiler/ops/conv2d_shape.h"
#include "graph/graph.h"
#include "graph/plan_options.h"

namespace tf::graph::passes {

// The blocked twin of a plain fused conv (conv2d_nchwc*, depthwise_nchwc*), or "" where none
// exists or its weight or bias is computed (it cannot be packed ahead).
std::string blocked_conv_twin(const Graph& g, const Node& n);

// The blocked twin of a 2-D pool node (max_pool2d_nchwc, avg_pool2d_nchwc, max_pool2d_nchwc_u8), or ""
// (run plainly).
std::string blocked_pool_twin(const Graph& g, const Node& n);

// The blocked twin of a 2-D global pool (global_avg_pool2d_nchwc, global_max_pool2d_nchwc) that
// reads its input in block b, or "" (b does not divide the channels, or no twin). It writes the
// plain [N, C, 1, 1] result.
std::string global_pool_twin(const Graph& g, const Node& n, int64_t b);

// The block a blocked conv reads a plain input in: 1 when the input has fewer channels than a
// block (a first layer's 3), because NCHW is NCHW1c and the conv reads it in place, no conversion;
// else the default 16.
int64_t plain_input_block(int64_t channels);
// Whether a value in block b is its plain bytes (NCHW1c is NCHW): no conversion either way.
inline bool block_is_plain(int64_t b) { return b == 1; }

struct BlockChoice {
  int64_t ib = 16, ob = 16;  // a depthwise conv's one block is both
};

// Per blocked conv node (by name) the blocks of the cheapest plan by options.measured_seconds:
// kernels by the fastest measured of their alternatives, conversions by their measured
// layout_to_nchwc / layout_from_nchwc / layout_reblock_nchwc, or else by their bytes at
// kSecondsPerConvertedByte. Empty (each conv as plan_layouts decides alone: 16-channel outputs,
// inputs read in the block they are in) when nothing of a blocked conv was measured, or the graph
// ties too many activations together to solve exactly.
std::map<std::string, BlockChoice> plan_blocks(const Graph& g, const PlanOptions& options);

// A conversion's time where none was measured: it reads and writes each element once, at about
// what layout_to_nchwc runs at (4 GB/s) one core.
constexpr double kSecondsPerConvertedByte = 1.0 / 4e9;

}  // namespace tf::graph::passes

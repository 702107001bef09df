// Reading a tensor along per-axis arithmetic progressions, what Slice, Split, Pad, Tile and Expand
// all are: y[j] = x[s + t*j] on every axis, indices outside x handled by a mode. One fold on
// constants and one lowering to the strided_copy kernel (compiler/ops/strided_copy.cc), so those ops
// only say their starts, steps and extents.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/kernel_calls.h"

namespace tf::graph::strided {

// strided_copy's modes: none (every index inside x), constant (a pad value), edge, reflect, wrap.
enum class Mode : int64_t { None = 0, Constant = 1, Edge = 2, Reflect = 3, Wrap = 4 };

struct Axes {
  Shape in;                     // x's extents as read, of the output's rank (leading 1s added)
  Shape out;                    // the output's extents
  std::vector<int64_t> starts;  // the index into x of output index 0, per axis
  std::vector<int64_t> steps;   // nonzero
};

// The output from a constant x (its data read under `a.in`); `pad` is the value outside x in
// Constant mode.
Tensor read(const Node& n, const Tensor& x, const Axes& a, Mode mode, double pad);

// The strided_copy call of node `n` reading input 0 (float32, rank <= 6) into output 0; `pad_value`
// names the value outside x in Constant mode. An output equal to x is an alias.
NodeLowering lower(const Graph& g, const Node& n, const Axes& a, Mode mode, const std::string& pad_value);

// Refuses an output with no elements (a compiled model's values have positive extents).
void refuse_empty_output(const Node& n, const Shape& out);

}  // namespace tf::graph::strided

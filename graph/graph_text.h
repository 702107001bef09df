// A graph as text, one node a line: what `tunefarm model inspect --dump-after` prints between passes.
//
//   inputs: x float32[1,3,224,224]
//   conv1 float32[1,64,112,112] = conv2d_bias_relu(x, const w1 float32[64,3,7,7], const b1 float32[64])
//   {pads=[3,3,3,3], strides=[2,2]}  // Conv_0 outputs: logits
//
// A runtime value's type is shown where it is defined (a graph input, a node output), a constant's
// where it is read, with its elements when it has at most kShownElements. A fused elementwise node's
// body follows it, indented.
#pragma once

#include <string>

#include "graph/graph.h"

namespace tf::graph {

inline constexpr int kShownElements = 8;

std::string to_text(const Graph& g);

}  // namespace tf::graph

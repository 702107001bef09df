// Static shapes. Every value's extents are known at import: each symbolic extent of a model input
// is bound then (ImportOptions: --input-shape, --batch), and one left unbound is refused. A model
// imported at one shape is planned, tuned and built for that shape.
#pragma once

#include "graph/graph.h"

namespace tf::graph {

// Sets the dtype and shape of the node's outputs from its inputs' (which must be known) and its
// attributes. Throws CompileError naming the node, and the attribute or input that is wrong.
void infer_node_shapes(Graph& g, const Node& n);
// The same for every node, in order.
void infer_shapes(Graph& g);

// numpy-style broadcast of two shapes; throws CompileError naming the node when they do not match.
Shape broadcast_shapes(const Shape& a, const Shape& b, const Node& n);
// A possibly negative axis as 0..rank-1 (rank+1 for Unsqueeze-style insertion); CompileError naming
// the node and attribute when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const Node& n, const std::string& attr);

// Output extents of a Conv / pooling window along one spatial dimension.
int64_t window_output(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end,
                      bool ceil_mode);

}  // namespace tf::graph

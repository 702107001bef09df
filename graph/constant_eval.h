// Evaluating a node whose inputs are all constants, at planning time: shape arithmetic
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape), constant casts and elementwise arithmetic on
// weights, each by its op's registry entry (OpDef::fold). Not a runtime interpreter: the heavy
// operators (Conv, MatMul, pooling, normalization) have no fold, so nothing folds into an
// unexpected slow path.
#pragma once

#include <vector>

#include "graph/graph.h"

namespace tf::graph {

// The ops evaluate_constant_node can compute (their entry has a fold).
bool is_constant_foldable(const std::string& op);
// Elementwise ops a fused chain may absorb (their entry says so).
bool is_elementwise(const std::string& op);

// The node's outputs from its inputs' data (inputs[i] may be null for an absent optional input).
// Output shapes come from the graph's values (shape inference has run). Throws CompileError naming
// the node for an op outside is_constant_foldable or an index out of range.
std::vector<Tensor> evaluate_constant_node(const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs);

// Folds the node when every input it reads is a constant (Shape reads only its input's shape) and
// it is foldable: its output becomes a constant value (the caller drops the node). A graph output
// folds only when its op has no kernel (it is then returned from the model's constants); an output
// of more than 2^31 elements never does. Returns whether it folded.
bool fold_if_constant(Graph& g, const Node& n);

// A DequantizeLinear of a constant int8 tensor (a QDQ model's weight): the import and the first
// fold_constants leave it a node, so fuse_qdq can run its conv on the integers.
bool dequantizes_int8_weight(const Graph& g, const Node& n);

// Data movement: a permutation of axes.
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm);

}  // namespace tf::graph

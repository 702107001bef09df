// What the pattern passes (fuse_epilogues, fuse_attention, fuse_layer_norm, fuse_qdq) share: following a value
// to its one reader while matching, and once matched, dropping the matched nodes and putting each
// new node where its pattern's last node was.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace tf::graph::passes {

// The node that alone reads `value` (once, and not one of `taken`), when the value is not a graph
// output; else -1.
int sole_reader(const Graph& g, const std::string& value, const std::set<size_t>& taken = {});

// The node producing `value` when it is `op` and nothing else reads `value`; else -1.
int sole_producer(const Graph& g, const std::string& value, const std::string& op);

struct Replacement {
  std::vector<size_t> nodes;  // matched, removed; the last one is where `by` goes
  Node by;
};

// The graph without the replaced nodes and with their replacements, sorted and without the values
// nothing reads any more. Replacements must not share nodes.
Graph replace_nodes(Graph g, std::vector<Replacement> replacements);

// Whether any of `nodes` is already in one of `taken` (a match that overlaps an earlier one).
bool overlaps(const std::vector<Replacement>& taken, const std::vector<size_t>& nodes);

}  // namespace tf::graph::passes

// What the pattern passes (fuse_attention, fuse_layer_norm) do once they have matched: drop the
// matched nodes and put each new node where its pattern's last node was.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace tf::graph::passes {

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

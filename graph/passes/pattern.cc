#include "graph/passes/pattern.h"

#include <algorithm>
#include <map>

namespace tf::graph::passes {

int sole_reader(const Graph& g, const std::string& value, const std::set<size_t>& taken) {
  if (g.use_count(value) != 1) return -1;
  const auto readers = g.consumers(value);
  if (readers.size() != 1 || taken.count(readers[0])) return -1;
  return static_cast<int>(readers[0]);
}

int sole_producer(const Graph& g, const std::string& value, const std::string& op) {
  const int p = g.producer(value);
  if (p < 0 || g.nodes[static_cast<size_t>(p)].op != op || g.use_count(value) != 1) return -1;
  return p;
}

Graph replace_nodes(Graph g, std::vector<Replacement> replacements) {
  if (replacements.empty()) return g;
  std::set<size_t> removed;
  std::map<size_t, Node*> placed_at;
  for (Replacement& r : replacements) {
    removed.insert(r.nodes.begin(), r.nodes.end());
    placed_at[r.nodes.back()] = &r.by;
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (auto it = placed_at.find(i); it != placed_at.end()) nodes.push_back(std::move(*it->second));
    if (!removed.count(i)) nodes.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(nodes);
  g.sort_topologically();
  g.remove_unused_values();
  return g;
}

bool overlaps(const std::vector<Replacement>& taken, const std::vector<size_t>& nodes) {
  for (const Replacement& r : taken) {
    for (size_t n : nodes) {
      if (std::find(r.nodes.begin(), r.nodes.end(), n) != r.nodes.end()) return true;
    }
  }
  return false;
}

}  // namespace tf::graph::passes

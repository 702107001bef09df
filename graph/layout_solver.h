// The cheapest joint choice for a set of discrete variables under a sum of cost tables over a few
// variables each (what picking the channel block of every activation of a graph is: each conv's
// kernel time depends on its input's and output's blocks, each conversion on the two it joins).
// Solved exactly by variable elimination in the given order (min-sum dynamic programming: a chain
// is a DP over its links; a residual block's triangle stays small); where eliminating a variable
// would make a table over more than `max_scope` variables the problem is refused (nullopt) rather
// than solved approximately.
#pragma once

#include <optional>
#include <vector>

namespace tf::graph {

struct CostTable {
  std::vector<int> vars;     // distinct variable indices; the first varies slowest in `cost`
  std::vector<double> cost;  // one entry per combination of the vars' values (may be +inf)
};

class ChoiceProblem {
 public:
  // A variable with `choices` values; returns its index. Variables are eliminated in this order,
  // so adding them in a topological order of the graph keeps the tables small.
  int add_variable(int choices);
  // Requires each var to exist and cost.size() to be the product of their choice counts.
  void add_cost(CostTable table);
  int variables() const { return static_cast<int>(choices_.size()); }
  int choices(int var) const { return choices_.at(static_cast<size_t>(var)); }

  struct Solution {
    std::vector<int> values;  // per variable
    double cost = 0;          // +inf when every assignment costs +inf
  };
  std::optional<Solution> solve(size_t max_scope = 6) const;

 private:
  std::vector<int> choices_;
  std::vector<CostTable> tables_;
};

}  // namespace tf::graph

#include "graph/layout_solver.h"

#include <algorithm>
#include <limits>
#include <string>

#include "compiler/error.h"

namespace tf::graph {
namespace {

// The table's entry for the values `at` gives its variables.
size_t entry(const CostTable& t, const std::vector<int>& at, const std::vector<int>& choices) {
  size_t i = 0;
  for (int v : t.vars)
    i = i * static_cast<size_t>(choices[static_cast<size_t>(v)]) + static_cast<size_t>(at[static_cast<size_t>(v)]);
  return i;
}

size_t combinations(const std::vector<int>& vars, const std::vector<int>& choices) {
  size_t n = 1;
  for (int v : vars) n *= static_cast<size_t>(choices[static_cast<size_t>(v)]);
  return n;
}

// Sets `at` for `vars` to the `i`-th combination (the first variable slowest).
void assign(const std::vector<int>& vars, size_t i, const std::vector<int>& choices, std::vector<int>* at) {
  for (size_t k = vars.size(); k-- > 0;) {
    const auto n = static_cast<size_t>(choices[static_cast<size_t>(vars[k])]);
    (*at)[static_cast<size_t>(vars[k])] = static_cast<int>(i % n);
    i /= n;
  }
}

// What eliminating one variable leaves to backtrack through: its best value for each combination
// of the variables it was tied to.
struct Eliminated {
  int var;
  std::vector<int> scope;
  std::vector<int> best;
};

}  // namespace

int ChoiceProblem::add_variable(int choices) {
  if (choices < 1)
    throw CompileError("layout choice: a variable needs at least one value, got " + std::to_string(choices));
  choices_.push_back(choices);
  return static_cast<int>(choices_.size()) - 1;
}

void ChoiceProblem::add_cost(CostTable table) {
  for (int v : table.vars) {
    if (v < 0 || v >= variables())
      throw CompileError("layout choice: a cost table names variable " + std::to_string(v) + " of " +
                         std::to_string(variables()));
  }
  if (table.cost.size() != combinations(table.vars, choices_)) {
    throw CompileError("layout choice: a cost table over " + std::to_string(table.vars.size()) + " variables has " +
                       std::to_string(table.cost.size()) + " entries, not " +
                       std::to_string(combinations(table.vars, choices_)));
  }
  tables_.push_back(std::move(table));
}

std::optional<ChoiceProblem::Solution> ChoiceProblem::solve(size_t max_scope) const {
  std::vector<CostTable> live = tables_;
  std::vector<Eliminated> trail;
  std::vector<int> at(choices_.size(), 0);
  for (int x = 0; x < variables(); ++x) {
    std::vector<CostTable> touching;
    std::vector<int> scope;
    for (auto it = live.begin(); it != live.end();) {
      if (std::find(it->vars.begin(), it->vars.end(), x) == it->vars.end()) {
        ++it;
        continue;
      }
      for (int v : it->vars) {
        if (v != x && std::find(scope.begin(), scope.end(), v) == scope.end()) scope.push_back(v);
      }
      touching.push_back(std::move(*it));
      it = live.erase(it);
    }
    if (scope.size() > max_scope) return std::nullopt;
    CostTable reduced{scope, std::vector<double>(combinations(scope, choices_))};
    Eliminated e{x, scope, std::vector<int>(reduced.cost.size(), 0)};
    for (size_t i = 0; i < reduced.cost.size(); ++i) {
      assign(scope, i, choices_, &at);
      double best = std::numeric_limits<double>::infinity();
      for (int value = 0; value < choices(x); ++value) {
        at[static_cast<size_t>(x)] = value;
        double sum = 0;
        for (const CostTable& t : touching) sum += t.cost[entry(t, at, choices_)];
        if (sum < best || (value == 0 && sum == best)) best = sum, e.best[i] = value;
      }
      reduced.cost[i] = best;
    }
    live.push_back(std::move(reduced));
    trail.push_back(std::move(e));
  }
  Solution s;
  for (const CostTable& t : live) s.cost += t.cost.at(0);  // every variable is gone: constants
  s.values.assign(choices_.size(), 0);
  for (auto it = trail.rbegin(); it != trail.rend(); ++it) {
    s.values[static_cast<size_t>(it->var)] = it->best[entry(CostTable{it->scope, {}}, s.values, choices_)];
  }
  return s;
}

}  // namespace tf::graph

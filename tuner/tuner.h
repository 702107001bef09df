// Search strategies over a config space, all behind one interface: ask for the next batch of
// configs, then report their results. A tuner never proposes a config twice in a job and never
// proposes more than its budget.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/space/config_space.h"

namespace tf::tuner {

struct TrialResult {
  int64_t config_index;
  bool ok;        // measured and correct
  double gflops;  // 0 unless ok
};

class Tuner {
 public:
  Tuner(const space::ConfigSpace& space, int64_t budget, uint64_t seed);
  virtual ~Tuner() = default;
  virtual std::string name() const = 0;

  // Up to `max_batch` configs never proposed before; empty when the budget or the space is spent.
  std::vector<space::Config> next_batch(int max_batch);
  void update(const std::vector<TrialResult>& results);

  int64_t proposed() const { return static_cast<int64_t>(seen_.size()); }
  int64_t budget() const { return budget_; }
  bool done() const { return proposed() >= budget_ || proposed() >= searchable_; }
  // Marks configs measured earlier (a resumed job) so they are not proposed again.
  void mark_seen(int64_t config_index) { seen_.insert(config_index); }

 protected:
  // Strategy hooks: propose candidates (duplicates and seen ones are filtered by the base class).
  virtual std::vector<int64_t> propose(int n) = 0;
  virtual void observe(const std::vector<TrialResult>& results) {}
  // At most this many configs per batch, whatever the caller asks: a learning strategy wants its
  // early results back soon, to spend fewer trials on guesses.
  virtual int64_t batch_limit() const { return budget_; }
  // Proposed before, or outside the searchable part of the space (ConfigSpace::limit_product).
  bool seen(int64_t index) const { return seen_.count(index) > 0 || !space_.searchable(index); }
  int64_t random_unseen();

  const space::ConfigSpace& space_;
  int64_t budget_;
  int64_t searchable_;  // space_.searchable_size()
  std::mt19937_64 rng_;
  std::unordered_set<int64_t> seen_;
};

// A candidate's features for a cost model (tuner/features.h).
using FeatureFn = std::function<std::vector<float>(const space::Config&)>;

}  // namespace tf::tuner

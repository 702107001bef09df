// The baseline search strategies the cost-model tuner is measured against.
#pragma once

#include <utility>

#include "tuner/tuner.h"

namespace tf::tuner {

// Uniformly random configs.
class RandomTuner : public Tuner {
 public:
  using Tuner::Tuner;
  std::string name() const override { return "random"; }

 protected:
  std::vector<int64_t> propose(int n) override;
};

// Configs in index order.
class GridTuner : public Tuner {
 public:
  using Tuner::Tuner;
  std::string name() const override { return "grid"; }

 protected:
  std::vector<int64_t> propose(int n) override;

 private:
  int64_t next_ = 0;
};

// A genetic algorithm over knob choices: the fittest configs measured so far breed by uniform
// crossover of their knob choices, with per-knob mutation; elites survive.
class GeneticTuner : public Tuner {
 public:
  using Tuner::Tuner;
  std::string name() const override { return "ga"; }

 protected:
  std::vector<int64_t> propose(int n) override;
  void observe(const std::vector<TrialResult>& results) override;

 private:
  std::vector<std::pair<double, int64_t>> population_;  // (gflops, index), best first
  static constexpr size_t kPopulation = 32;
  static constexpr double kMutation = 0.1;
};

}  // namespace tf::tuner

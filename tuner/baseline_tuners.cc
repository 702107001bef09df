#include "tuner/baseline_tuners.h"

#include <algorithm>

namespace tf::tuner {

std::vector<int64_t> RandomTuner::propose(int n) {
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    int64_t idx = random_unseen();
    if (idx < 0) break;
    out.push_back(idx);
    seen_.insert(idx);  // keep the batch itself free of repeats; the base class re-checks
  }
  for (int64_t idx : out) seen_.erase(idx);
  return out;
}

std::vector<int64_t> GridTuner::propose(int n) {
  std::vector<int64_t> out;
  while (static_cast<int>(out.size()) < n && next_ < space_.size()) {
    if (!seen(next_)) out.push_back(next_);
    ++next_;
  }
  return out;
}

void GeneticTuner::observe(const std::vector<TrialResult>& results) {
  for (const auto& r : results) population_.emplace_back(r.ok ? r.gflops : 0.0, r.config_index);
  std::sort(population_.begin(), population_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (population_.size() > kPopulation) population_.resize(kPopulation);
}

std::vector<int64_t> GeneticTuner::propose(int n) {
  std::vector<int64_t> out;
  if (population_.size() < 4) return out;  // not enough parents yet: the base class fills at random
  const auto& knobs = space_.knobs();
  // Fitness-proportional choice of parents, with a floor so failed configs can still be picked.
  std::vector<double> weights;
  for (const auto& [g, idx] : population_) weights.push_back(g + 1e-3);
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  std::uniform_real_distribution<double> coin(0, 1);
  for (int attempt = 0; static_cast<int>(out.size()) < n && attempt < n * 20; ++attempt) {
    auto a = space_.at(population_[pick(rng_)].second).choices();
    auto b = space_.at(population_[pick(rng_)].second).choices();
    std::vector<size_t> child(knobs.size());
    for (size_t k = 0; k < knobs.size(); ++k) {
      child[k] = coin(rng_) < 0.5 ? a[k] : b[k];
      if (coin(rng_) < kMutation) child[k] = static_cast<size_t>(rng_() % knobs[k].choices.size());
    }
    int64_t idx = space_.from_choices(child).index();
    if (!seen(idx) && std::find(out.begin(), out.end(), idx) == out.end()) out.push_back(idx);
  }
  return out;
}

}  // namespace tf::tuner

// The model-guided tuner: an XGBoost ranking model, retrained on every batch of results, scores
// candidates; simulated annealing over those scores picks the next batch, with a share of random
// picks so the model keeps learning about the parts of the space it rates low.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "tuner/tuner.h"
#include "tuner/xgb_model.h"

namespace tf::tuner {

class XgbTuner : public Tuner {
 public:
  XgbTuner(const space::ConfigSpace& space, int64_t budget, uint64_t seed, FeatureFn features);
  std::string name() const override { return "xgb"; }

  // A prior measurement (a transfer start: the same op and device, another shape): features and
  // speed relative to the best of its own workload (0..1]. Priors of one `workload` rank among
  // themselves, beside the job's own results, while the job has few results of its own.
  void add_prior(const std::string& workload, std::vector<float> features, double relative_speed);
  // A config of this space close to what was fastest on another shape (ConfigSpace::nearest): the
  // first model-guided batch gives up to half its places to these, best-scored first, and the
  // annealing starts from them while the job has no results of its own.
  void add_start_point(int64_t config_index);
  // The first batch is the search's alone: no default config measured first.
  void skip_default() { default_offered_ = true; }
  const XgbModel& model() const { return model_; }
  XgbModel& model() { return model_; }

 protected:
  std::vector<int64_t> propose(int n) override;
  void observe(const std::vector<TrialResult>& results) override;
  int64_t batch_limit() const override;

 private:
  const std::vector<float>& features_of(int64_t index);
  const std::vector<float>& cache_features(int64_t index, std::vector<float> features);
  // Computes the features of those of `indices` not cached yet, on every core: the search waits
  // for them, and with nothing built or timed meanwhile the other cores would sit idle.
  void compute_features(const std::vector<int64_t>& indices);
  void retrain();
  std::vector<int64_t> warmup_batch(int n);
  std::vector<int64_t> search(int n);
  std::vector<int64_t> chain_starts();
  std::vector<float> score(const std::vector<int64_t>& indices);
  // The best-scored config one knob away from the best measured one that is neither measured nor
  // in `taken`; -1 when there is none.
  int64_t best_unmeasured_neighbour_of_best(const std::set<int64_t>& taken);
  int64_t neighbour(int64_t index);

  FeatureFn features_fn_;
  XgbModel model_;
  std::unordered_map<int64_t, std::vector<float>> feature_cache_;
  std::vector<std::pair<int64_t, double>> observed_;  // config index, GFLOPS (0: failed)
  struct Prior {
    std::vector<float> features;
    double relative_speed;
  };
  std::map<std::string, std::vector<Prior>> prior_;  // by workload
  std::vector<int64_t> start_points_;
  size_t prior_count_ = 0;
  size_t trained_on_ = 0;
  int num_features_ = 0;
  bool default_offered_ = false;
};

}  // namespace tf::tuner

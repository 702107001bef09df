// A thin RAII wrapper over XGBoost's C API: a model scoring candidates by their features, higher
// meaning faster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tf::tuner {

// How the model learns. The default regresses each row's speed relative to the best of its own
// workload, raised to `label_power`: the search only needs the fast end ranked right, and a cubed
// target spends the fit's error there (a config at half speed weighs 1/8, not 1/2). On held-out
// conv2d measurements this ranked the fastest configs better than plain relative speed and than
// pairwise ranking (bench/results/costmodel.json compares the three).
struct XgbParams {
  std::string objective = "reg:squarederror";  // or "rank:pairwise" (which reads labels as an order only)
  double label_power = 3;
  int rounds = 120;
  double eta = 0.1;
  int max_depth = 6;
};
// "reg:squarederror on speed^3", "rank:pairwise": how reports name a model's training.
std::string describe(const XgbParams& params);

class XgbModel {
 public:
  explicit XgbModel(XgbParams params = {});
  ~XgbModel();
  XgbModel(const XgbModel&) = delete;
  XgbModel& operator=(const XgbModel&) = delete;

  // Trains from scratch on rows of `num_features` floats; `labels` are relative speeds in (0, 1]
  // (higher is better) within groups: `group_sizes` (consecutive rows each; empty: one group of all) and
  // `group_weights` (one per group; empty: all 1; a group's weight is shared by its rows). Throws
  // std::runtime_error with XGBoost's message on failure.
  void train(const std::vector<float>& rows, int num_features, const std::vector<float>& labels, uint64_t seed,
             const std::vector<unsigned>& group_sizes = {}, const std::vector<float>& group_weights = {});
  std::vector<float> predict(const std::vector<float>& rows, int num_features) const;
  bool trained() const { return booster_ != nullptr; }

  std::vector<uint8_t> save() const;  // XGBoost's JSON model format
  // Throws on a bad model, and on one trained on rows of another length than `expected_features`
  // (when given): a model of another workload's loop nest would misread every row.
  void load(const std::vector<uint8_t>& bytes, int expected_features = -1);
  int num_features() const;  // of the trained or loaded model; 0 when there is none

 private:
  XgbParams params_;
  void* booster_ = nullptr;
};

}  // namespace tf::tuner

// A thin RAII wrapper over XGBoost's C API: a model scoring candidates by their features, higher
// meaning faster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tf::tuner {

// How the model learns. The default regresses each row's speed relative to the best of its own
// workload: on held-out conv2d measurements it ranked the fastest configs better than pairwise
// ranking did (bench/results/costmodel.json compares the two).
struct XgbParams {
  std::string objective = "reg:squarederror";  // or "rank:pairwise"
  int rounds = 120;
  double eta = 0.1;
  int max_depth = 6;
};

class XgbModel {
 public:
  explicit XgbModel(XgbParams params = {});
  ~XgbModel();
  XgbModel(const XgbModel&) = delete;
  XgbModel& operator=(const XgbModel&) = delete;

  // Trains from scratch on rows of `num_features` floats; `labels` are relative scores (higher is
  // better) within groups: `group_sizes` (consecutive rows each; empty: one group of all) and
  // `group_weights` (one per group; empty: all 1; a group's weight is shared by its rows). Throws
  // std::runtime_error with XGBoost's message on failure.
  void train(const std::vector<float>& rows, int num_features, const std::vector<float>& labels, uint64_t seed,
             const std::vector<unsigned>& group_sizes = {}, const std::vector<float>& group_weights = {});
  std::vector<float> predict(const std::vector<float>& rows, int num_features) const;
  bool trained() const { return booster_ != nullptr; }

  std::vector<uint8_t> save() const;           // XGBoost's JSON model format
  // Throws on a bad model, and on one trained on rows of another length than `expected_features`
  // (when given): a model of another workload's loop nest would misread every row.
  void load(const std::vector<uint8_t>& bytes, int expected_features = -1);
  int num_features() const;  // of the trained or loaded model; 0 when there is none

 private:
  XgbParams params_;
  void* booster_ = nullptr;
};

}  // namespace tf::tuner

// How well the cost model ranks configs it has not measured: per layer, a model trained on the
// rest of the measurements scores held-out ones, and its ranking is compared with the measured one
// (Spearman rank correlation; top-10 recall: of the 10 fastest held-out configs, how many are among
// the model's 10 best-scored). Computed for every feature set and learning objective on the same
// measurements, so feature and model work is measured rather than guessed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "db/database.h"
#include "tuner/features.h"
#include "tuner/xgb_model.h"

namespace tf::bench {

// The distinct configs measured on one layer and their speed (median over their measurements).
struct LayerSamples {
  std::string name;  // the standard workload's name, e.g. "resnet18-c2"
  std::shared_ptr<const compiler::Task> task;
  std::vector<int64_t> config_indices;
  std::vector<double> gflops;
};

// The successful measurements of `task`'s workload on `device_key` in `db`.
LayerSamples layer_samples(db::Database& db, const std::string& name, std::shared_ptr<const compiler::Task> task,
                           const std::string& device_key);

struct PredictionQuality {
  std::string layer;
  tuner::FeatureSet features;
  std::string objective;
  int64_t samples = 0;
  // k-fold over the layer's samples: trained on the other folds, as the tuner trains once a job has
  // results of its own (it drops the other shapes' records then).
  double spearman = 0, top10_recall = 0;
  // Trained on the other layers of its op alone (what a new layer's first batch is chosen by).
  double transfer_spearman = 0, transfer_top10_recall = 0;
};

// Each layer's rows under `features`, one per sample: lowering every config is the costly part, done
// once per feature set however many objectives read them.
using LayerFeatures = std::vector<std::vector<std::vector<float>>>;
LayerFeatures layer_features(const std::vector<LayerSamples>& layers, tuner::FeatureSet features);

// One row per layer; `rows` are layer_features(layers, features). Layers of another op than a
// layer's never train its model, nor do layers whose rows have another length under `features`
// (the tuner leaves such priors out too).
std::vector<PredictionQuality> evaluate_predictions(const std::vector<LayerSamples>& layers, const LayerFeatures& rows,
                                                    tuner::FeatureSet features, const tuner::XgbParams& params,
                                                    int folds, uint64_t seed);

// Spearman's rank correlation (ties share their mean rank); 0 when either side is constant.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);
// Of the k highest `truth` values, the fraction whose item is among the k highest `score` values.
double top_k_recall(const std::vector<double>& truth, const std::vector<double>& score, size_t k);

}  // namespace tf::bench

#include "bench/prediction_quality.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "support/stats.h"
#include "tuner/xgb_model.h"

namespace tf::bench {
namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t t = i; t <= j; ++t) r[order[t]] = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
    i = j + 1;
  }
  return r;
}

std::vector<size_t> top_k(const std::vector<double>& v, size_t k) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  k = std::min(k, v.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](size_t a, size_t b) { return v[a] > v[b]; });
  order.resize(k);
  return order;
}

// Training rows as the xgb tuner builds them: one ranking group per layer, labels relative to the
// group's best.
struct Training {
  std::vector<float> rows, labels;
  std::vector<unsigned> groups;
  int width = 0;

  void add_group(const std::vector<const std::vector<float>*>& features, const std::vector<double>& gflops) {
    if (features.empty()) return;
    const double best = std::max(1e-9, *std::max_element(gflops.begin(), gflops.end()));
    for (size_t i = 0; i < features.size(); ++i) {
      width = static_cast<int>(features[i]->size());
      rows.insert(rows.end(), features[i]->begin(), features[i]->end());
      labels.push_back(static_cast<float>(gflops[i] / best));
    }
    groups.push_back(static_cast<unsigned>(features.size()));
  }
};

struct Scored {
  double spearman, recall;
};

Scored score_held_out(const Training& train, const std::vector<const std::vector<float>*>& test,
                      const std::vector<double>& truth, const tuner::XgbParams& params, uint64_t seed) {
  tuner::XgbModel model(params);
  model.train(train.rows, train.width, train.labels, seed, train.groups);
  std::vector<float> rows;
  for (const auto* f : test) rows.insert(rows.end(), f->begin(), f->end());
  const std::vector<float> p = model.predict(rows, train.width);
  const std::vector<double> pred(p.begin(), p.end());
  return {rank_correlation(truth, pred), top_k_recall(truth, pred, 10)};
}

}  // namespace

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size()), mean = (n - 1) / 2;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

double top_k_recall(const std::vector<double>& truth, const std::vector<double>& score, size_t k) {
  const auto best = top_k(truth, k), picked = top_k(score, k);
  if (best.empty()) return 0;
  size_t hits = 0;
  for (size_t i : best) hits += std::count(picked.begin(), picked.end(), i) > 0 ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(best.size());
}

LayerSamples layer_samples(db::Database& db, const std::string& name, std::shared_ptr<const compiler::Task> task,
                           const std::string& device_key) {
  LayerSamples s;
  s.name = name;
  std::map<int64_t, std::vector<double>> by_config;
  const double flops = static_cast<double>(task->op().flops(task->workload().shape));
  for (const auto& m : db.history(task->workload().op, task->workload().shape, task->target().str(), device_key)) {
    if (m.outcome != db::Outcome::Ok || m.mean_s() <= 0) continue;
    const int64_t index = m.config_index >= 0 ? m.config_index : task->space().from_json(m.config).index();
    by_config[index].push_back(flops / m.mean_s() * 1e-9);
  }
  for (auto& [index, g] : by_config) {
    s.config_indices.push_back(index);
    s.gflops.push_back(median(g));
  }
  s.task = std::move(task);
  return s;
}

LayerFeatures layer_features(const std::vector<LayerSamples>& layers, tuner::FeatureSet features) {
  LayerFeatures rows(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    const auto& task = *layers[l].task;
    for (int64_t index : layers[l].config_indices)
      rows[l].push_back(tuner::candidate_features(task, task.space().at(index), features));
  }
  return rows;
}

std::vector<PredictionQuality> evaluate_predictions(const std::vector<LayerSamples>& layers, const LayerFeatures& rows,
                                                    tuner::FeatureSet features, const tuner::XgbParams& params,
                                                    int folds, uint64_t seed) {
  auto pointers = [&](size_t l, const std::vector<size_t>& which) {
    std::vector<const std::vector<float>*> out;
    for (size_t i : which) out.push_back(&rows[l][i]);
    return out;
  };
  auto values = [&](size_t l, const std::vector<size_t>& which) {
    std::vector<double> out;
    for (size_t i : which) out.push_back(layers[l].gflops[i]);
    return out;
  };
  std::vector<PredictionQuality> out;
  for (size_t l = 0; l < layers.size(); ++l) {
    PredictionQuality q;
    q.layer = layers[l].name;
    q.features = features;
    q.objective = tuner::describe(params);
    q.samples = static_cast<int64_t>(layers[l].gflops.size());
    if (layers[l].gflops.size() < static_cast<size_t>(folds) * 10) {
      out.push_back(q);
      continue;
    }
    Training others;
    for (size_t o = 0; o < layers.size(); ++o) {
      if (o == l || layers[o].task->workload().op != layers[l].task->workload().op) continue;
      // As in the tuner: rows of another length (another set of knobs) mean other things.
      if (rows[o].empty() || rows[l].empty() || rows[o][0].size() != rows[l][0].size()) continue;
      std::vector<size_t> all(rows[o].size());
      std::iota(all.begin(), all.end(), 0);
      others.add_group(pointers(o, all), values(o, all));
    }
    std::vector<size_t> all(rows[l].size());
    std::iota(all.begin(), all.end(), 0);
    if (!others.groups.empty()) {
      const Scored s = score_held_out(others, pointers(l, all), values(l, all), params, seed);
      q.transfer_spearman = s.spearman;
      q.transfer_top10_recall = s.recall;
    }
    std::vector<size_t> shuffled = all;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(seed));
    std::vector<double> rho, recall;
    for (int f = 0; f < folds; ++f) {
      std::vector<size_t> test, train;
      for (size_t i = 0; i < shuffled.size(); ++i)
        (static_cast<int>(i % static_cast<size_t>(folds)) == f ? test : train).push_back(shuffled[i]);
      Training t;
      t.add_group(pointers(l, train), values(l, train));
      const Scored s = score_held_out(t, pointers(l, test), values(l, test), params, seed + static_cast<uint64_t>(f));
      rho.push_back(s.spearman);
      recall.push_back(s.recall);
    }
    q.spearman = std::accumulate(rho.begin(), rho.end(), 0.0) / static_cast<double>(folds);
    q.top10_recall = std::accumulate(recall.begin(), recall.end(), 0.0) / static_cast<double>(folds);
    out.push_back(q);
  }
  return out;
}

}  // namespace tf::bench

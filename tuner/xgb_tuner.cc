#include "tuner/xgb_tuner.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "support/parallel_each.h"

namespace tf::tuner {
namespace {

// Random picks before the model is trusted, and the share of random picks after (epsilon-greedy).
constexpr size_t kWarmup = 8;
// Small batches while the model knows little: each retraining on a few more results moves it most.
constexpr size_t kEarlyResults = 64;
constexpr int64_t kEarlyBatch = 8;
constexpr double kEpsilon = 0.1;
// Transfer: priors train the model until the job has this many results of its own; from then on the
// job's own landscape alone (another shape's optimum may sit elsewhere: with priors kept, a seeded
// job was seen to stay on a plateau 10% below the best for 150 trials).
constexpr size_t kPriorUntil = 48;
// Simulated annealing: chains, steps per chain, start and end temperature (in model-score units).
constexpr int kChains = 48;
constexpr int kSteps = 24;
constexpr double kT0 = 1.0, kT1 = 0.0;

}  // namespace

XgbTuner::XgbTuner(const space::ConfigSpace& space, int64_t budget, uint64_t seed, FeatureFn features)
    : Tuner(space, budget, seed), features_fn_(std::move(features)) {}

void XgbTuner::add_prior(const std::string& workload, std::vector<float> features, double relative_speed) {
  prior_[workload].push_back({std::move(features), relative_speed});
  ++prior_count_;
}

void XgbTuner::add_start_point(int64_t config_index) {
  if (std::find(start_points_.begin(), start_points_.end(), config_index) == start_points_.end())
    start_points_.push_back(config_index);
}

const std::vector<float>& XgbTuner::features_of(int64_t index) {
  auto it = feature_cache_.find(index);
  if (it != feature_cache_.end()) return it->second;
  return cache_features(index, features_fn_(space_.at(index)));
}

// Every row as wide as the first: a template's features may vary in count between configs.
const std::vector<float>& XgbTuner::cache_features(int64_t index, std::vector<float> f) {
  if (num_features_ == 0) num_features_ = static_cast<int>(f.size());
  f.resize(static_cast<size_t>(num_features_), 0.0f);
  return feature_cache_.emplace(index, std::move(f)).first->second;
}

void XgbTuner::compute_features(const std::vector<int64_t>& indices) {
  std::vector<int64_t> missing;
  std::set<int64_t> seen;
  for (int64_t i : indices) {
    if (!feature_cache_.count(i) && seen.insert(i).second) missing.push_back(i);
  }
  if (missing.size() < 2) return;  // features_of computes the one or none left
  std::vector<std::vector<float>> computed(missing.size());
  parallel_each(missing.size(), hardware_workers(8),
                [&](size_t k) { computed[k] = features_fn_(space_.at(missing[k])); });
  for (size_t k = 0; k < missing.size(); ++k) cache_features(missing[k], std::move(computed[k]));
}

void XgbTuner::observe(const std::vector<TrialResult>& results) {
  for (const auto& r : results) observed_.emplace_back(r.config_index, r.ok ? r.gflops : 0.0);
}

int64_t XgbTuner::batch_limit() const { return observed_.size() < kEarlyResults ? kEarlyBatch : budget_; }

void XgbTuner::retrain() {
  // The row length is this workload's: priors of other shapes whose loop nests give other lengths
  // are left out, never the other way round.
  if (num_features_ == 0 && space_.size() > 0) features_of(0);
  const bool use_priors = observed_.size() < kPriorUntil;
  if (observed_.size() + (use_priors ? prior_count_ : 0) < kWarmup) return;
  if (model_.trained() && observed_.size() == trained_on_) return;
  std::vector<float> rows, labels, weights;
  std::vector<unsigned> groups;
  // The job's own results: one ranking group, labels relative to the best seen.
  double best = 1e-9;
  for (const auto& [idx, g] : observed_) best = std::max(best, g);
  for (const auto& [idx, g] : observed_) {
    const auto& f = features_of(idx);
    rows.insert(rows.end(), f.begin(), f.end());
    labels.push_back(static_cast<float>(g / best));
  }
  if (!observed_.empty()) {
    groups.push_back(static_cast<unsigned>(observed_.size()));
    // As much say as all the priors together: a few own results must be able to overrule them.
    weights.push_back(
        static_cast<float>(use_priors ? std::max(1.0, double(prior_count_) / double(observed_.size())) : 1.0));
  }
  // Each prior workload its own group: configs compare within a shape, never across.
  for (const auto& [workload, list] : use_priors ? prior_ : decltype(prior_){}) {
    unsigned n = 0;
    for (const auto& p : list) {
      if (num_features_ == 0) num_features_ = static_cast<int>(p.features.size());
      if (static_cast<int>(p.features.size()) != num_features_) continue;
      rows.insert(rows.end(), p.features.begin(), p.features.end());
      labels.push_back(static_cast<float>(p.relative_speed));
      ++n;
    }
    if (n > 0) {
      groups.push_back(n);
      weights.push_back(1.0f);
    }
  }
  if (num_features_ == 0 || labels.size() < 2) return;
  model_.train(rows, num_features_, labels, rng_(), groups, weights);
  trained_on_ = observed_.size();
}

int64_t XgbTuner::neighbour(int64_t index) {
  const std::vector<size_t> from = space_.at(index).choices();
  const auto& knobs = space_.knobs();
  // Change one knob (sometimes two) to another of its choices, staying in the searchable part of
  // the space: a step outside would only cost the features of a config never proposed.
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::vector<size_t> choices = from;
    const int changes = (rng_() % 4 == 0) ? 2 : 1;
    for (int i = 0; i < changes; ++i) {
      const size_t k = rng_() % knobs.size();
      if (knobs[k].choices.size() < 2) continue;
      size_t to = rng_() % (knobs[k].choices.size() - 1);
      if (to >= choices[k]) ++to;
      choices[k] = to;
    }
    const int64_t next = space_.from_choices(choices).index();
    if (space_.searchable(next)) return next;
  }
  return index;
}

int64_t XgbTuner::best_unmeasured_neighbour_of_best(const std::set<int64_t>& taken) {
  if (observed_.empty()) return -1;
  const int64_t best = std::max_element(observed_.begin(), observed_.end(), [](const auto& a, const auto& b) {
                         return a.second < b.second;
                       })->first;
  const std::vector<size_t> base = space_.at(best).choices();
  const auto& knobs = space_.knobs();
  std::vector<int64_t> candidates;
  for (size_t k = 0; k < knobs.size(); ++k) {
    for (size_t c = 0; c < knobs[k].choices.size(); ++c) {
      if (c == base[k]) continue;
      std::vector<size_t> choices = base;
      choices[k] = c;
      const int64_t index = space_.from_choices(choices).index();
      if (!seen(index) && !taken.count(index)) candidates.push_back(index);
    }
  }
  if (candidates.empty()) return -1;
  const std::vector<float> s = score(candidates);
  return candidates[static_cast<size_t>(std::max_element(s.begin(), s.end()) - s.begin())];
}

std::vector<int64_t> XgbTuner::warmup_batch(int n) {
  // A Latin hypercube over the knobs: each knob's choices spread evenly over the batch (every
  // choice once per that many configs), each knob shuffled on its own, so the first model sees
  // every choice of every knob rather than what a random draw happens to offer.
  const auto& knobs = space_.knobs();
  std::vector<std::vector<size_t>> column(knobs.size());
  for (size_t k = 0; k < knobs.size(); ++k) {
    const size_t choices = knobs[k].choices.size();
    for (int i = 0; i < n; ++i) column[k].push_back(static_cast<size_t>(i) % choices);
    std::shuffle(column[k].begin(), column[k].end(), rng_);
  }
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    std::vector<size_t> choices;
    for (size_t k = 0; k < knobs.size(); ++k) choices.push_back(column[k][static_cast<size_t>(i)]);
    out.push_back(space_.from_choices(choices).index());
  }
  return out;
}

std::vector<int64_t> XgbTuner::propose(int n) {
  // The template's default config goes first: a job should never end with a best slower than what
  // an untuned build runs, and a search that misses the default's region learns where it is.
  if (!default_offered_) {
    default_offered_ = true;
    const int64_t d = space_.default_config().index();
    if (!seen(d)) {
      std::vector<int64_t> out = {d};
      if (n > 1) {
        const auto rest = search(n - 1);
        out.insert(out.end(), rest.begin(), rest.end());
      }
      return out;
    }
  }
  return search(n);
}

std::vector<float> XgbTuner::score(const std::vector<int64_t>& indices) {
  compute_features(indices);
  std::vector<float> rows;
  for (int64_t i : indices) {
    const auto& f = features_of(i);
    rows.insert(rows.end(), f.begin(), f.end());
  }
  return model_.predict(rows, num_features_);
}

std::vector<int64_t> XgbTuner::chain_starts() {
  // From the best measured configs (or, before any, the other shapes' best mapped here) and from
  // random ones.
  std::vector<int64_t> points;
  if (observed_.empty()) {
    for (int64_t p : start_points_) {
      if (points.size() < static_cast<size_t>(kChains / 2)) points.push_back(p);
    }
  }
  std::vector<std::pair<int64_t, double>> by_speed = observed_;
  std::sort(by_speed.begin(), by_speed.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t i = 0; i < by_speed.size() && points.size() < kChains / 2; ++i) points.push_back(by_speed[i].first);
  while (points.size() < static_cast<size_t>(kChains)) {
    int64_t p = static_cast<int64_t>(rng_() % static_cast<uint64_t>(space_.size()));
    for (int attempt = 0; attempt < 16 && !space_.searchable(p); ++attempt)
      p = static_cast<int64_t>(rng_() % static_cast<uint64_t>(space_.size()));
    points.push_back(space_.searchable(p) ? p : space_.default_config().index());
  }
  return points;
}

std::vector<int64_t> XgbTuner::search(int n) {
  retrain();
  if (!model_.trained()) return warmup_batch(n);  // repeats are topped up at random by the base class
  std::vector<int64_t> out;
  std::set<int64_t> picked;
  if (observed_.empty() && !start_points_.empty()) {
    // What was fastest on the other shapes, mapped here, is a better bet than any one model score;
    // the model orders them and the annealing fills the other half.
    std::vector<int64_t> unseen;
    for (int64_t p : start_points_) {
      if (!seen(p)) unseen.push_back(p);
    }
    const std::vector<float> s = score(unseen);
    std::vector<size_t> order(unseen.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s[a] > s[b]; });
    for (size_t i = 0; i < order.size() && static_cast<int>(out.size()) < n / 2; ++i) {
      out.push_back(unseen[order[i]]);
      picked.insert(unseen[order[i]]);
    }
  }
  std::vector<int64_t> points = chain_starts();
  std::vector<float> scores = score(points);
  // Best unseen candidates met on the way, by predicted score. A tree model scores whole regions
  // alike; ties go to a random draw, not to the config index (which would favour one knob's last
  // choice).
  std::set<std::tuple<float, uint64_t, int64_t>, std::greater<>> top;
  std::set<int64_t> in_top;
  auto remember = [&](int64_t idx, float s) {
    if (seen(idx) || in_top.count(idx) || picked.count(idx)) return;
    top.emplace(s, rng_(), idx);
    in_top.insert(idx);
    if (top.size() > static_cast<size_t>(n) * 2) {
      in_top.erase(std::get<2>(*std::prev(top.end())));
      top.erase(std::prev(top.end()));
    }
  };
  for (size_t i = 0; i < points.size(); ++i) remember(points[i], scores[i]);
  std::uniform_real_distribution<double> uni(0, 1);
  for (int step = 0; step < kSteps; ++step) {
    const double t = kT0 + (kT1 - kT0) * step / kSteps;
    std::vector<int64_t> next;
    next.reserve(points.size());
    for (int64_t p : points) next.push_back(neighbour(p));
    std::vector<float> next_scores = score(next);
    for (size_t i = 0; i < points.size(); ++i) {
      remember(next[i], next_scores[i]);
      const double delta = next_scores[i] - scores[i];
      if (delta >= 0 || (t > 0 && uni(rng_) < std::exp(delta / t))) {
        points[i] = next[i];
        scores[i] = next_scores[i];
      }
    }
  }
  const int exploit = std::max(1, static_cast<int>(std::lround(n * (1.0 - kEpsilon))));
  // One place for the best-scored config one knob away from the best measured one: the model may
  // rate a far region higher, but a search that never tries the best config's own neighbours can
  // stop short of an optimum one knob away (seen on MobileNet's first depthwise layer: runs held
  // at 89% of the best, a tile width away from it).
  if (static_cast<int>(out.size()) < exploit) {
    if (const int64_t local = best_unmeasured_neighbour_of_best(picked); local >= 0) {
      out.push_back(local);
      picked.insert(local);
    }
  }
  for (const auto& [s, tie, idx] : top) {
    if (static_cast<int>(out.size()) >= exploit) break;
    if (picked.insert(idx).second) out.push_back(idx);
  }
  // The rest (epsilon) is left to the base class, which fills with random unseen configs.
  return out;
}

}  // namespace tf::tuner

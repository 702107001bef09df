// The model-guided tuner against random search on a landscape with a known optimum: a statistical
// assertion over a fixed set of seeds, counting trials, never timing anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "support/json.h"
#include "tuner/features.h"
#include "tuner/make_tuner.h"
#include "tuner/tuner.h"
#include "tuner/xgb_tuner.h"

namespace tf::tuner {
namespace {

// Five knobs of eight choices (32768 configs). Fitness is smooth around one optimum, as tile sizes
// are, with one knob that does not matter, so a learner has structure to find and noise to ignore.
space::ConfigSpace landscape_space() {
  space::ConfigSpace s;
  for (const char* name : {"a", "b", "c", "d", "unused"}) {
    std::vector<Json> choices;
    for (int v = 0; v < 8; ++v) choices.push_back(Json(int64_t{1} << v));
    s.add_knob(name, choices, 0, "");
  }
  return s;
}

double fitness(const space::Config& c) {
  const int optimum[] = {5, 2, 6, 3};
  double d = 0;
  for (int k = 0; k < 4; ++k) {
    const double x = static_cast<double>(c.choices()[static_cast<size_t>(k)]) - optimum[k];
    d += x * x;
  }
  return 100.0 / (1.0 + d);
}

// Trials until the optimum (fitness 100) is measured; the budget + 1 when never.
int64_t trials_to_optimum(const std::string& name, uint64_t seed, int64_t budget) {
  space::ConfigSpace s = landscape_space();
  auto t = make_tuner(name, s, budget, seed);
  int64_t trials = 0;
  while (!t->done()) {
    auto batch = t->next_batch(16);
    std::vector<TrialResult> results;
    for (const auto& c : batch) {
      ++trials;
      const double g = fitness(c);
      if (g >= 100.0) return trials;
      results.push_back({c.index(), true, g});
    }
    t->update(results);
  }
  return budget + 1;
}

TEST(XgbTuner, ReachesAKnownOptimumInFewerTrialsThanRandom) {
  const int64_t budget = 1500;
  std::vector<int64_t> xgb, random;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    xgb.push_back(trials_to_optimum("xgb", seed, budget));
    random.push_back(trials_to_optimum("random", seed, budget));
  }
  std::sort(xgb.begin(), xgb.end());
  std::sort(random.begin(), random.end());
  const int64_t xgb_median = xgb[2], random_median = random[2];
  RecordProperty("xgb_median", static_cast<int>(xgb_median));
  RecordProperty("random_median", static_cast<int>(random_median));
  std::printf("trials to the optimum, median of 5 seeds: xgb %lld, random %lld\n", static_cast<long long>(xgb_median),
              static_cast<long long>(random_median));
  EXPECT_LT(xgb_median * 3, random_median) << "xgb median " << xgb_median << " trials, random " << random_median;
  EXPECT_LE(xgb[4], budget) << "xgb missed the optimum for some seed";
}

TEST(XgbTuner, NeverRepeatsAndRespectsTheBudget) {
  space::ConfigSpace s = landscape_space();
  auto t = make_tuner("xgb", s, 200, 9);
  std::set<int64_t> seen;
  while (!t->done()) {
    auto batch = t->next_batch(32);
    ASSERT_FALSE(batch.empty());
    std::vector<TrialResult> results;
    for (const auto& c : batch) {
      EXPECT_TRUE(seen.insert(c.index()).second) << "repeated " << c.index();
      results.push_back({c.index(), true, fitness(c)});
    }
    t->update(results);
  }
  EXPECT_EQ(seen.size(), 200u);
}

// Another shape's best configs, mapped into this space, lead the first batch of a job with history:
// half of it at most, the one the prior-trained model rates higher first; the rest is the model's.
TEST(XgbTuner, FirstBatchWithHistoryLeadsWithTheMappedBestConfigs) {
  space::ConfigSpace s = landscape_space();
  XgbTuner t(s, 100, 3, [](const space::Config& c) { return knob_features(c); });
  t.skip_default();
  for (int64_t i = 0; i < 64; ++i) {
    const auto c = s.at(i * 509 % s.size());
    t.add_prior("other-shape", knob_features(c), fitness(c) / 100);
  }
  const int64_t good = s.from_choices({5, 2, 6, 2, 0}).index(), poor = s.from_choices({0, 7, 0, 7, 0}).index();
  std::vector<int64_t> starts = {poor, good, s.from_choices({4, 2, 6, 3, 1}).index(),
                                 s.from_choices({5, 3, 5, 3, 2}).index(), s.from_choices({5, 2, 5, 3, 4}).index()};
  for (int64_t p : starts) t.add_start_point(p);
  t.add_start_point(good);  // once is enough
  const auto batch = t.next_batch(8);
  ASSERT_EQ(batch.size(), 8u);
  std::vector<int64_t> first_half;
  for (size_t i = 0; i < 4; ++i) first_half.push_back(batch[i].index());
  for (int64_t i : first_half) EXPECT_NE(std::find(starts.begin(), starts.end(), i), starts.end()) << s.at(i).str();
  EXPECT_NE(std::find(first_half.begin(), first_half.end(), good), first_half.end());
  EXPECT_EQ(std::find(first_half.begin(), first_half.end(), poor), first_half.end())
      << "the model ranks it last of five";
  // The other half is not the start points again.
  std::set<int64_t> distinct;
  for (const auto& c : batch) distinct.insert(c.index());
  EXPECT_EQ(distinct.size(), 8u);
}

TEST(XgbTuner, ModelRoundTripsThroughBytes) {
  space::ConfigSpace s = landscape_space();
  std::vector<float> rows, labels;
  int nf = 0;
  for (int64_t i = 0; i < 64; ++i) {
    auto c = s.at(i * 500);
    auto f = knob_features(c);
    nf = static_cast<int>(f.size());
    rows.insert(rows.end(), f.begin(), f.end());
    labels.push_back(static_cast<float>(fitness(c) / 100));
  }
  XgbModel m;
  m.train(rows, nf, labels, 1);
  auto before = m.predict(rows, nf);
  XgbModel copy;
  copy.load(m.save());
  EXPECT_EQ(copy.predict(rows, nf), before);
  XgbModel bad;
  EXPECT_THROW(bad.load(std::vector<uint8_t>{'n', 'o', 'p', 'e'}), std::runtime_error);
}

}  // namespace
}  // namespace tf::tuner

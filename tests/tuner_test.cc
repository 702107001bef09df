#include <gtest/gtest.h>

#include <set>

#include "compiler/compiler.h"
#include "tuner/tuner.h"

namespace tf::tuner {
namespace {

compiler::Task task() {
  codegen::Target t;
  t.vector_bits = 256;
  return compiler::Task({"dense", {256, 256, 256}}, t);
}

// A landscape with one known optimum: fitness falls with the distance of each knob's choice from
// the optimum's.
double synthetic_gflops(const space::Config& c, const std::vector<size_t>& optimum) {
  double d = 0;
  for (size_t k = 0; k < optimum.size(); ++k) {
    double x = static_cast<double>(c.choices()[k]) - static_cast<double>(optimum[k]);
    d += x * x;
  }
  return 100.0 / (1.0 + d);
}

TEST(Tuners, NeverRepeatAConfigAndRespectTheBudget) {
  auto t = task();
  std::vector<size_t> optimum(t.space().knobs().size(), 1);
  for (const char* name : {"random", "grid", "ga"}) {
    auto tuner = make_tuner(name, t.space(), 300, 11);
    std::set<int64_t> seen;
    int64_t total = 0;
    while (!tuner->done()) {
      auto batch = tuner->next_batch(64);
      ASSERT_FALSE(batch.empty()) << name;
      std::vector<TrialResult> results;
      for (const auto& c : batch) {
        EXPECT_TRUE(seen.insert(c.index()).second) << name << " repeated config " << c.index();
        results.push_back({c.index(), true, synthetic_gflops(c, optimum)});
      }
      total += static_cast<int64_t>(batch.size());
      tuner->update(results);
    }
    EXPECT_EQ(total, 300) << name;
    EXPECT_TRUE(tuner->next_batch(64).empty()) << name;
  }
}

TEST(Tuners, ExhaustATinySpaceWithoutRepeats) {
  codegen::Target tg;
  tg.vector_bits = 256;
  compiler::Task tiny({"dense", {1, 1, 1}}, tg);
  auto tuner = make_tuner("random", tiny.space(), 1000000, 3);
  std::set<int64_t> seen;
  while (!tuner->done()) {
    for (const auto& c : tuner->next_batch(7)) EXPECT_TRUE(seen.insert(c.index()).second);
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), tiny.space().size());
}

TEST(Tuners, BadNamesAndBudgetsAreRefused) {
  auto t = task();
  EXPECT_THROW(make_tuner("annealing", t.space(), 10, 1), CompileError);
  EXPECT_THROW(make_tuner("random", t.space(), 0, 1), CompileError);
  EXPECT_THROW(make_tuner("random", t.space(), -5, 1), CompileError);
}

}  // namespace
}  // namespace tf::tuner

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "tuner/make_tuner.h"
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

// A space with a product limit: 4 x 4 tiles, of which those with a x b > 4 are left out.
space::ConfigSpace limited_space() {
  space::ConfigSpace cs;
  cs.add_knob("a", {Json(1), Json(2), Json(4), Json(8)}, 0, "");
  cs.add_knob("b", {Json(1), Json(2), Json(4), Json(8)}, 1, "");
  cs.add_knob("c", {Json("x"), Json("y")}, 0, "");
  cs.limit_product({"a", "b"}, 1, 4, "a x b <= 4");
  return cs;
}

TEST(ConfigSpaceLimits, CountAndTellSearchableConfigs) {
  const space::ConfigSpace cs = limited_space();
  EXPECT_EQ(cs.size(), 32);
  // (a, b) in {(1,1), (1,2), (1,4), (2,1), (2,2), (4,1)}, times two choices of c.
  EXPECT_EQ(cs.searchable_size(), 12);
  EXPECT_TRUE(cs.searchable(cs.from_json({{"a", 2}, {"b", 2}}).index()));
  EXPECT_FALSE(cs.searchable(cs.from_json({{"a", 2}, {"b", 4}}).index()));
  EXPECT_EQ(cs.to_json().at("searchable_size"), 12);
  // A left-out config is still a config: it can be named.
  EXPECT_EQ(cs.from_json({{"a", 8}, {"b", 8}}).get_int("a"), 8);
}

TEST(ConfigSpaceLimits, RefuseALimitThatLeavesOutTheDefaultOrNamesAStringKnob) {
  space::ConfigSpace cs;
  cs.add_knob("a", {Json(1), Json(8)}, 1, "");
  cs.add_knob("s", {Json("x")}, 0, "");
  EXPECT_THROW(cs.limit_product({"a"}, 1, 4, "a <= 4"), CompileError);
  EXPECT_THROW(cs.limit_product({"s"}, 1, 4, "s"), CompileError);
  EXPECT_THROW(cs.limit_product({"missing"}, 1, 4, "m"), CompileError);
}

// Runs each tuner over `cs` until it is done; every config it proposes must be searchable and new,
// and together they must be the whole searchable part. Returns what each proposed.
std::map<std::string, std::set<int64_t>> expect_tuners_spend_the_searchable_configs(const space::ConfigSpace& cs) {
  std::map<std::string, std::set<int64_t>> proposed;
  for (const char* name : {"random", "grid", "ga", "xgb"}) {
    auto tuner = make_tuner(name, cs, 1000, 5);
    std::set<int64_t>& seen = proposed[name];
    for (int round = 0; round < 100 && !tuner->done(); ++round) {
      std::vector<TrialResult> results;
      for (const auto& c : tuner->next_batch(5)) {
        EXPECT_TRUE(cs.searchable(c.index())) << name << " proposed " << c.str();
        EXPECT_TRUE(seen.insert(c.index()).second) << name;
        results.push_back({c.index(), true, 1.0 + static_cast<double>(c.index())});
      }
      tuner->update(results);
    }
    EXPECT_TRUE(tuner->done()) << name;
    EXPECT_EQ(static_cast<int64_t>(seen.size()), cs.searchable_size()) << name;
  }
  return proposed;
}

TEST(ConfigSpaceLimits, TunersProposeOnlySearchableConfigsAndStopWhenTheyAreSpent) {
  expect_tuners_spend_the_searchable_configs(limited_space());
}

// A choice limit beside a product limit: of c's three values only x and z are searched.
space::ConfigSpace choice_limited_space() {
  space::ConfigSpace cs = limited_space();
  cs.add_knob("d", {Json("x"), Json("y"), Json("z")}, 2, "");
  cs.search_only("d", {Json("x"), Json("z")}, "d is x or z");
  return cs;
}

TEST(ConfigSpaceLimits, AChoiceLimitLeavesOutTheOtherValuesOfItsKnob) {
  const space::ConfigSpace cs = choice_limited_space();
  EXPECT_EQ(cs.size(), 96);
  EXPECT_EQ(cs.searchable_size(), 24);  // 12 within the product limit, times x and z
  EXPECT_TRUE(cs.searchable(cs.from_json({{"d", "x"}}).index()));
  EXPECT_FALSE(cs.searchable(cs.from_json({{"d", "y"}}).index()));
  EXPECT_FALSE(cs.searchable(cs.from_json({{"a", 8}, {"b", 8}, {"d", "z"}}).index()));
  // Left out of the search, still a config: an old record naming it builds.
  EXPECT_EQ(cs.from_json({{"d", "y"}}).get_string("d"), "y");
  const Json limits = cs.to_json().at("limits");
  ASSERT_EQ(limits.size(), 2u);
  EXPECT_EQ(limits[1].at("knob"), "d");
  EXPECT_EQ(limits[1].at("searched"), Json::array({"x", "z"}));
  EXPECT_EQ(cs.to_json().at("searchable_size"), 24);
}

TEST(ConfigSpaceLimits, RefuseAChoiceLimitOnAnUnknownKnobOrValueOrWithoutTheDefault) {
  space::ConfigSpace cs;
  cs.add_knob("d", {Json("x"), Json("y")}, 1, "");
  EXPECT_THROW(cs.search_only("d", {Json("x")}, "leaves out the default y"), CompileError);
  EXPECT_THROW(cs.search_only("d", {Json("w"), Json("y")}, "w is no choice"), CompileError);
  EXPECT_THROW(cs.search_only("e", {Json("x")}, "no knob e"), CompileError);
  EXPECT_EQ(cs.searchable_size(), 2);  // nothing refused was kept
}

TEST(ConfigSpaceLimits, TunersProposeOnlyTheSearchedValuesOfAChoiceLimit) {
  const space::ConfigSpace cs = choice_limited_space();
  for (const auto& [name, seen] : expect_tuners_spend_the_searchable_configs(cs)) {
    for (int64_t i : seen) EXPECT_NE(cs.at(i).get_string("d"), "y") << name;
  }
}

// Inside a model, a conv whose threads share out channel blocks reads half its input from the
// other cores' caches (its neighbours share out rows): the NCHWc templates search row splits only.
TEST(ConfigSpaceLimits, NchwcConvsSearchOnlyTheRowSplitsOfTheirOutput) {
  codegen::Target avx512;
  avx512.vector_bits = 512;
  avx512.vector_registers = 32;
  const std::vector<ops::Workload> workloads = {
      {"conv2d_nchwc_bias_add", {1, 384, 14, 14, 64, 1, 1, 1, 1, 1, 0, 0, 0, 0, 16, 16}},
      {"conv2d_nchwc_bias_relu", {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 16, 16}},
      {"depthwise_nchwc_bias_clip", {1, 384, 14, 14, 384, 3, 3, 1, 1, 384, 1, 1, 1, 1, 16}}};
  for (const ops::Workload& w : workloads) {
    compiler::Task task(w, avx512);
    const space::ConfigSpace& cs = task.space();
    std::set<std::string> searched;
    for (int64_t i = 0; i < cs.size(); ++i) {
      if (cs.searchable(i)) searched.insert(cs.at(i).get_string("parallel"));
    }
    EXPECT_EQ(searched, (std::set<std::string>{"y", "yk"})) << w.op;
    EXPECT_FALSE(cs.searchable(cs.from_json({{"parallel", "nk"}}).index())) << w.op;
  }
  // Many output rows (56) share out rows alone; few (14) fuse the blocks in to balance the threads.
  EXPECT_EQ(compiler::Task(workloads[1], avx512).space().default_config().get_string("parallel"), "y");
  EXPECT_EQ(compiler::Task(workloads[0], avx512).space().default_config().get_string("parallel"), "yk");
}

TEST(ConfigSpaceLimits, ConvTemplatesLeaveOutTilesBeyondTwiceTheRegisterFile) {
  codegen::Target avx2;
  avx2.vector_bits = 256;
  avx2.vector_registers = 16;
  compiler::Task conv({"conv2d_nchwc_bias_relu", {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 16, 16}}, avx2);
  const space::ConfigSpace& cs = conv.space();
  EXPECT_LT(cs.searchable_size(), cs.size());
  EXPECT_TRUE(cs.searchable(cs.default_config().index()));
  // 4 blocks x 16 columns x 4 rows of two AVX2 vectors each: 512 accumulators.
  EXPECT_FALSE(cs.searchable(cs.from_json({{"oc_blocks", 4}, {"ow_tile", 16}, {"oh_tile", 4}}).index()));
  // 1 x 6 x 1 of two vectors: 12, what fits.
  EXPECT_TRUE(cs.searchable(cs.from_json({{"oc_blocks", 1}, {"ow_tile", 6}, {"oh_tile", 1}}).index()));
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

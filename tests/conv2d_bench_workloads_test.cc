// The conv2d benchmark's reading of ../shared/workloads/conv2d.json (every entry becomes workloads
// tunefarm runs, under its own name, with the file's FLOPs) and its targets. The blocked operators
// are only named here: whether this build has them is the benchmark's question.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/conv2d_targets.h"
#include "bench/conv2d_workloads.h"
#include "compiler/ops/operator.h"
#include "support/args.h"
#include "support/files.h"

namespace {

using tf::Json;
using tf::bench::Conv2dWorkload;

Json read_json(const std::string& path) { return tf::parse_json(tf::read_file(path)); }

std::string shared_file() {
  const std::string path = tf::bench::default_conv2d_workloads_path(TF_SOURCE_DIR);
  EXPECT_TRUE(std::filesystem::exists(path)) << path << " is missing: the shared workloads sit beside the project "
                                             << "(../shared), or TUNEFARM_SHARED_DIR names their folder";
  return path;
}

// The file's own formula on its own fields: 2*N*OC*OH*OW*(IC/groups)*KH*KW.
double file_flops(const Json& e) {
  const int64_t groups = e.value("groups", int64_t{1}), stride = e.value("stride", int64_t{1}),
                pad = e.value("pad", int64_t{0});
  const int64_t oh = (e.at("H").get<int64_t>() + 2 * pad - e.at("KH").get<int64_t>()) / stride + 1;
  const int64_t ow = (e.at("W").get<int64_t>() + 2 * pad - e.at("KW").get<int64_t>()) / stride + 1;
  return 2.0 * static_cast<double>(e.at("N").get<int64_t>() * e.at("OC").get<int64_t>() * oh * ow *
                                   (e.at("IC").get<int64_t>() / groups) * e.at("KH").get<int64_t>() *
                                   e.at("KW").get<int64_t>());
}

TEST(Conv2dBenchWorkloads, EveryEntryMapsUnderItsNameToAPlainConv2dWithTheFilesFlops) {
  const std::string path = shared_file();
  const Json raw = read_json(path);
  const std::vector<Conv2dWorkload> mapped = tf::bench::load_conv2d_workloads(path);
  ASSERT_EQ(mapped.size(), raw.at("workloads").size());
  const tf::ops::Operator& conv2d = tf::ops::find_operator("conv2d");
  for (size_t i = 0; i < mapped.size(); ++i) {
    const Json& entry = raw.at("workloads")[i];
    const Conv2dWorkload& w = mapped[i];
    SCOPED_TRACE(w.name);
    EXPECT_EQ(w.name, entry.at("name").get<std::string>());
    ASSERT_FALSE(w.variants.empty());
    const auto& plain = w.variants.front();
    EXPECT_EQ(plain.variant, "plain");
    EXPECT_EQ(plain.op, "conv2d");
    std::vector<int64_t> shape;
    ASSERT_NO_THROW(shape = tf::ops::parse_shape("conv2d", plain.shape)) << plain.shape;
    EXPECT_NO_THROW(tf::ops::check_workload({"conv2d", shape}));
    EXPECT_EQ(shape, w.shape.to_vector()) << plain.shape;
    EXPECT_DOUBLE_EQ(static_cast<double>(conv2d.flops(shape)), file_flops(entry));
    EXPECT_DOUBLE_EQ(static_cast<double>(w.shape.flops()), file_flops(entry));
    // The brief's form: n, stride and pad always written, groups only when grouped.
    EXPECT_EQ(plain.shape.rfind("n=", 0), 0u) << plain.shape;
    EXPECT_NE(plain.shape.find(",stride="), std::string::npos) << plain.shape;
    EXPECT_NE(plain.shape.find(",pad="), std::string::npos) << plain.shape;
    EXPECT_EQ(plain.shape.find("groups=") != std::string::npos, entry.value("groups", 1) != 1) << plain.shape;
  }
}

TEST(Conv2dBenchWorkloads, BlockedVariantsNameTheBlockedOperatorWithChannelBlocksOf16) {
  int dense_layers = 0, depthwise_layers = 0;
  for (const Conv2dWorkload& w : tf::bench::load_conv2d_workloads(shared_file())) {
    SCOPED_TRACE(w.name);
    const bool winograd =
        w.shape.groups == 1 && w.shape.r == 3 && w.shape.s == 3 && w.shape.stride == 1 && w.shape.dilation == 1;
    ASSERT_EQ(w.variants.size(), winograd ? 5u : 2u);
    const auto& plain = w.variants[0];
    const auto& blocked = w.variants[1];
    for (size_t i = 2; i < w.variants.size(); ++i) {
      const std::string m = std::to_string(2 * (i - 1));
      EXPECT_EQ(w.variants[i].variant, "winograd-m" + m);
      EXPECT_EQ(w.variants[i].op, "conv2d_winograd_nchwc");
      EXPECT_EQ(w.variants[i].shape, blocked.shape + ",m=" + m);
      EXPECT_NO_THROW(tf::ops::check_workload(
          {"conv2d_winograd_nchwc", tf::ops::parse_shape("conv2d_winograd_nchwc", w.variants[i].shape)}));
    }
    EXPECT_EQ(blocked.variant, "blocked");
    if (w.shape.groups == 1) {
      ++dense_layers;
      EXPECT_EQ(blocked.op, "conv2d_nchwc");
      EXPECT_EQ(blocked.shape, plain.shape + ",ib=16,ob=16");
    } else {
      ++depthwise_layers;
      ASSERT_TRUE(w.shape.depthwise());
      EXPECT_EQ(blocked.op, "depthwise_nchwc");
      const std::string groups = ",groups=" + std::to_string(w.shape.groups);
      ASSERT_NE(plain.shape.find(groups), std::string::npos);
      std::string without_groups = plain.shape;
      without_groups.erase(without_groups.find(groups), groups.size());
      EXPECT_EQ(blocked.shape, without_groups + ",b=16");
    }
  }
  EXPECT_GT(dense_layers, 0);
  EXPECT_GT(depthwise_layers, 0);
}

TEST(Conv2dBenchWorkloads, OnlyUngroupedAndDepthwiseLayersHaveABlockedVariant) {
  const Json file = tf::parse_json(R"({"workloads": [
    {"name": "grouped", "N": 1, "IC": 8, "H": 9, "W": 9, "OC": 16, "KH": 3, "KW": 3, "stride": 1, "pad": 1, "groups": 2},
    {"name": "dilated", "N": 2, "IC": 4, "H": 12, "W": 12, "OC": 8, "KH": 3, "KW": 3, "pad": 2, "dilation": 2},
    {"name": "depthwise-x2", "N": 1, "IC": 8, "H": 9, "W": 9, "OC": 16, "KH": 3, "KW": 3, "pad": 1, "groups": 8}]})");
  const auto w = tf::bench::conv2d_workloads_from_json(file, "f.json");
  ASSERT_EQ(w.size(), 3u);
  ASSERT_EQ(w[2].variants.size(), 2u);  // depthwise: no Winograd variant
  EXPECT_EQ(w[2].variants[1].op, "depthwise_nchwc");
  EXPECT_EQ(w[2].variants[1].shape, "n=1,c=8,h=9,w=9,k=16,r=3,s=3,stride=1,pad=1,b=16");
  ASSERT_EQ(w[0].variants.size(), 1u);
  EXPECT_EQ(w[0].variants[0].shape, "n=1,c=8,h=9,w=9,k=16,r=3,s=3,stride=1,pad=1,groups=2");
  EXPECT_EQ(w[1].variants[0].shape, "n=2,c=4,h=12,w=12,k=8,r=3,s=3,stride=1,pad=2,dilation=2");
  EXPECT_EQ(w[1].variants[1].shape, "n=2,c=4,h=12,w=12,k=8,r=3,s=3,stride=1,pad=2,dilation=2,ib=16,ob=16");
  EXPECT_EQ(w[1].variants.size(), 2u);  // dilated: no Winograd variant
  EXPECT_EQ(tf::ops::parse_shape("conv2d", w[1].variants[0].shape), w[1].shape.to_vector());
}

void expect_refused(const std::string& workloads, const std::vector<std::string>& mentions) {
  const Json file = tf::parse_json(R"({"workloads": [)" + workloads + "]}");
  try {
    tf::bench::conv2d_workloads_from_json(file, "f.json");
    ADD_FAILURE() << "accepted " << workloads;
  } catch (const tf::UsageError& e) {
    for (const auto& m : mentions)
      EXPECT_NE(std::string(e.what()).find(m), std::string::npos) << e.what() << " lacks " << m;
  }
}

TEST(Conv2dBenchWorkloads, ARefusedEntryIsNamedByIndexNameAndField) {
  const std::string ok = R"({"name": "a", "N": 1, "IC": 4, "H": 8, "W": 8, "OC": 4, "KH": 3, "KW": 3, "pad": 1})";
  expect_refused(ok + R"(, {"name": "b", "N": 1, "IC": 4, "H": 8, "W": 8, "OC": 4, "KW": 3})",
                 {"workloads[1]", "(b)", "\"KH\" is missing"});
  expect_refused(R"({"name": "c", "N": 1, "IC": 4, "H": 8, "W": 8, "OC": 4, "KH": 3, "KW": 3, "strides": 2})",
                 {"workloads[0]", "(c)", "unknown field \"strides\""});
  expect_refused(R"({"name": "d", "N": 1, "IC": 4, "H": 8.5, "W": 8, "OC": 4, "KH": 3, "KW": 3})",
                 {"(d)", "\"H\" must be an integer"});
  expect_refused(R"({"name": "e", "N": 1, "IC": 6, "H": 8, "W": 8, "OC": 6, "KH": 3, "KW": 3, "groups": 4})",
                 {"(e)", "groups"});
  expect_refused(R"({"name": "f", "N": 1, "IC": 4, "H": 2, "W": 2, "OC": 4, "KH": 3, "KW": 3})", {"(f)"});
  expect_refused(R"({"N": 1, "IC": 4, "H": 8, "W": 8, "OC": 4, "KH": 3, "KW": 3})", {"workloads[0]", "\"name\""});
  expect_refused(ok + "," + ok, {"\"a\" is used twice"});
  expect_refused("", {"no workloads"});
}

TEST(Conv2dBenchWorkloads, SelectionKeepsTheOrderNamedAndRefusesAnUnknownName) {
  const auto all = tf::bench::load_conv2d_workloads(shared_file());
  ASSERT_GE(all.size(), 2u);
  const auto picked = tf::bench::select_conv2d_workloads(all, all[1].name + "," + all[0].name);
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].name, all[1].name);
  EXPECT_EQ(picked[1].name, all[0].name);
  EXPECT_EQ(tf::bench::select_conv2d_workloads(all, "").size(), all.size());
  EXPECT_EQ(tf::bench::select_conv2d_workloads(all, ",,").size(), all.size());
  try {
    tf::bench::select_conv2d_workloads(all, "resnet18-c99");
    ADD_FAILURE() << "accepted an unknown name";
  } catch (const tf::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("resnet18-c99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(all[0].name), std::string::npos) << e.what();
  }
}

// --- targets ---

tf::bench::Conv2dTargetInputs two_layer_run(double ratio_a, double ratio_b) {
  tf::bench::Conv2dTargetInputs in;
  in.threads = {1};
  in.layer_sets = {{"ResNet-18 layers", {"a", "b"}, 0.85, 0.6}};
  in.comparisons = {{"a", "plain", 1, 100 * ratio_a, 100}, {"b", "blocked", 1, 50 * ratio_b, 50}};
  in.compile_ms = {40, 60, 500};
  in.resnet18_3x3_trials_per_min = {90, 130, 120};
  return in;
}

TEST(Conv2dBenchTargets, GeomeanAndWorstLayerDecideAndNameTheFasterVariants) {
  auto t = tf::bench::conv2d_targets(two_layer_run(2.0, 0.5));
  ASSERT_EQ(t.size(), 4u);
  EXPECT_DOUBLE_EQ(t[0].value, 1.0);
  EXPECT_TRUE(t[0].met) << t[0].what;
  EXPECT_NE(t[0].what.find("2 of 2 layers"), std::string::npos) << t[0].what;
  EXPECT_NE(t[0].what.find("blocked on 1"), std::string::npos) << t[0].what;
  EXPECT_NE(t[0].what.find("plain on 1"), std::string::npos) << t[0].what;
  EXPECT_DOUBLE_EQ(t[1].value, 0.5);  // layer b is below the 0.6 floor
  EXPECT_FALSE(t[1].met);
  EXPECT_NE(t[1].what.find("(b)"), std::string::npos) << t[1].what;
  EXPECT_DOUBLE_EQ(t[2].value, 60);  // median compile ms
  EXPECT_TRUE(t[2].met);
  EXPECT_DOUBLE_EQ(t[3].value, 120);  // median trials per minute
  EXPECT_TRUE(t[3].met);

  t = tf::bench::conv2d_targets(two_layer_run(0.8, 0.85));
  EXPECT_FALSE(t[0].met) << t[0].value;
  EXPECT_TRUE(t[1].met) << t[1].value;
}

TEST(Conv2dBenchTargets, ALayerSetMissingALayerOrAThreadCountIsNeverMet) {
  auto in = two_layer_run(1.0, 1.0);
  in.threads = {1, 2};  // nothing was measured at 2 threads
  auto t = tf::bench::conv2d_targets(in);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_TRUE(t[0].met);
  EXPECT_TRUE(t[1].met);
  EXPECT_FALSE(t[2].met);
  EXPECT_NE(t[2].what.find("0 of 2 layers"), std::string::npos) << t[2].what;
  EXPECT_FALSE(t[3].met);

  in = two_layer_run(1.0, 1.0);
  in.comparisons.pop_back();
  t = tf::bench::conv2d_targets(in);
  EXPECT_FALSE(t[0].met) << t[0].what;
  EXPECT_NE(t[0].goal.find("over all 2 layers"), std::string::npos) << t[0].goal;
}

TEST(Conv2dBenchTargets, CompileTimeAndThroughputNotMeasuredAreNotMet) {
  auto in = two_layer_run(1.0, 1.0);
  in.compile_ms = {150, 120, 20};
  in.resnet18_3x3_trials_per_min.clear();
  const auto t = tf::bench::conv2d_targets(in);
  EXPECT_DOUBLE_EQ(t[2].value, 120);
  EXPECT_FALSE(t[2].met);
  EXPECT_FALSE(t[3].met);
  EXPECT_NE(t[3].what.find("no such layer tuned"), std::string::npos) << t[3].what;
}

}  // namespace

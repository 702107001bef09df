// `--dump-after PASS|all` on `tunefarm lower` and `tunefarm model inspect`, run as a user runs it:
// the named pass's program, every pass in order, and one clear error listing the names otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/test_files.h"

namespace {

struct PassSection {
  std::string pass;
  std::string text;
};

// The dumps of `out`, split at their "// after PASS (pass N)" headings, N checked to count up from 1
// (or to increase, for a single pass's dumps).
std::vector<PassSection> pass_sections(const std::string& out) {
  std::vector<PassSection> sections;
  std::istringstream lines(out);
  std::string line;
  int last_index = 0;
  const std::string heading = "// after ";
  while (std::getline(lines, line)) {
    if (line.rfind(heading, 0) == 0) {
      const size_t paren = line.find(" (pass ");
      EXPECT_NE(paren, std::string::npos) << line;
      const int index = std::stoi(line.substr(paren + 7));
      EXPECT_GT(index, last_index) << line;
      last_index = index;
      sections.push_back({line.substr(heading.size(), paren - heading.size()), ""});
    } else if (!sections.empty()) {
      sections.back().text += line + "\n";
    }
  }
  return sections;
}

std::vector<std::string> section_names(const std::vector<PassSection>& sections) {
  std::vector<std::string> names;
  for (const auto& s : sections) names.push_back(s.pass);
  return names;
}

const std::string kLowerDense =
    "lower --shape 64,64,64 --config '{\"mr\": 2, \"nr\": 32, \"unroll_k\": 4, \"vectorize\": true}'";

TEST(PassDumpCli, LowerDumpsTheNamedPassWhichChangesTheKernel) {
  const Result all = run_cli(kLowerDense + " --dump-after all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto every = pass_sections(all.out);
  ASSERT_EQ(section_names(every), (std::vector<std::string>{"schedule_ops", "simplify", "partition_loops", "simplify",
                                                            "unroll_loops", "simplify", "partition_loops", "simplify",
                                                            "vectorize_loops", "simplify", "fuse_dot_products"}));
  EXPECT_EQ(all.out.rfind("// dense[64,64,64], config ", 0), 0u) << all.out;

  const Result unrolled = run_cli(kLowerDense + " --dump-after unroll_loops");
  ASSERT_EQ(unrolled.exit_code, 0) << unrolled.err;
  const auto one = pass_sections(unrolled.out);
  ASSERT_EQ(section_names(one), std::vector<std::string>{"unroll_loops"});
  EXPECT_NE(unrolled.out.find("// after unroll_loops (pass 5)\nvoid tf_dense_64x64x64("), std::string::npos)
      << unrolled.out;
  EXPECT_EQ(one[0].text, every[4].text);
  EXPECT_NE(every[3].text.find("// unrolled"), std::string::npos) << every[3].text;
  EXPECT_EQ(one[0].text.find("// unrolled"), std::string::npos) << one[0].text;
  EXPECT_NE(every[7].text.find("// vectorized"), std::string::npos) << every[7].text;
  EXPECT_EQ(every[8].text.find("// vectorized"), std::string::npos)
      << "vectorize_loops makes vector statements of the loops";

  // A pass that runs more than once is dumped each time.
  EXPECT_EQ(section_names(pass_sections(run_cli(kLowerDense + " --dump-after simplify").out)),
            std::vector<std::string>(5, "simplify"));
}

TEST(PassDumpCli, LowerJsonCarriesTheDumps) {
  const Result r = run_cli(kLowerDense + " --dump-after vectorize_loops --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const tf::Json j = tf::parse_json(r.out);
  ASSERT_EQ(j.at("dumps").size(), 1u);
  EXPECT_EQ(j.at("dumps")[0].at("pass"), "vectorize_loops");
  EXPECT_EQ(j.at("dumps")[0].at("index"), 9);
  EXPECT_NE(j.at("dumps")[0].at("text").get<std::string>(), j.at("lowered").get<std::string>()) << "a simplify follows";
}

void expect_unknown_pass_lists(const std::string& args, const std::vector<std::string>& names) {
  SCOPED_TRACE(args);
  const Result r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--dump-after: no_such_pass not in {"), std::string::npos) << r.err;
  for (const auto& name : names) EXPECT_NE(r.err.find(name), std::string::npos) << name << " missing from " << r.err;
}

TEST(PassDumpCli, AnUnknownPassFailsWithTheValidNames) {
  expect_unknown_pass_lists(
      kLowerDense + " --dump-after no_such_pass",
      {"schedule_ops,simplify,partition_loops,unroll_loops,vectorize_loops,fuse_dot_products,all"});
  expect_unknown_pass_lists(
      "model inspect " + tf::testing_support::small_cnn() + " --dump-after no_such_pass",
      {"fold_constants", "fold_batchnorm", "fuse_epilogues", "pack_dense_weights", "plan_layouts", "all"});
  const Result raw = run_cli(kLowerDense + " --raw --dump-after all");
  EXPECT_EQ(raw.exit_code, 2);
  EXPECT_NE(raw.err.find("--raw excludes --dump-after"), std::string::npos) << raw.err;
}

TEST(PassDumpCli, ModelInspectDumpsTheGraphAfterANamedPassAndAfterEveryPass) {
  const std::string model = tf::testing_support::small_cnn();
  const Result all = run_cli("model inspect " + model + " --dump-after all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto every = pass_sections(all.out);
  ASSERT_EQ(
      section_names(every),
      (std::vector<std::string>{"fold_constants", "fuse_qdq", "fold_constants", "lift_unit_height", "fold_batchnorm",
                                "fuse_layer_norm", "fuse_attention", "fuse_epilogues", "fuse_elementwise",
                                "fuse_dense_activation", "pack_dense_weights", "plan_layouts"}));
  const Result fused = run_cli("model inspect " + model + " --dump-after fuse_epilogues");
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  const auto one = pass_sections(fused.out);
  ASSERT_EQ(section_names(one), std::vector<std::string>{"fuse_epilogues"});
  EXPECT_EQ(one[0].text, every[7].text);
  // fuse_epilogues turns Conv + Relu into one node; the graph before it still has both.
  EXPECT_NE(every[6].text.find("= Conv("), std::string::npos) << every[6].text;
  EXPECT_NE(every[6].text.find("= Relu("), std::string::npos) << every[6].text;
  EXPECT_EQ(one[0].text.find("= Conv("), std::string::npos) << one[0].text;
  EXPECT_EQ(one[0].text.find("= Relu("), std::string::npos) << one[0].text;
  EXPECT_NE(one[0].text.find("= conv2d_bias_relu(input, const "), std::string::npos) << one[0].text;
  EXPECT_EQ(one[0].text.rfind("inputs: input float32[1,3,32,32]\n", 0), 0u) << one[0].text;
  // plan_layouts blocks the convolutions (NCHWc).
  EXPECT_NE(every[11].text.find("nchwc"), std::string::npos) << every[11].text;
  EXPECT_EQ(every[10].text.find("nchwc"), std::string::npos) << every[10].text;
}

}  // namespace

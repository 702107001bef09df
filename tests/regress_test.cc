// Regression runs, the parts without a machine: the paired-ratio statistic and verdict, suite
// files, and the JUnit / JSON / markdown reports.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "regress/paired_ratio.h"
#include "regress/report.h"
#include "regress/suite.h"

namespace tf::regress {
namespace {

std::vector<double> noisy(double t, int n, double noise, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(1 - noise, 1 + noise);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(t * u(rng));
  return v;
}

TEST(PairedRatio, SameSpeedIsUnchangedAndTheIntervalHoldsOne) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const PairedRatio r = paired_speed_ratio(noisy(1e-3, 15, 0.03, seed), noisy(1e-3, 15, 0.03, seed + 100));
    EXPECT_NEAR(r.median, 1.0, 0.03);
    EXPECT_LE(r.low, r.median);
    EXPECT_GE(r.high, r.median);
    EXPECT_GE(r.confidence, 0.95);
    EXPECT_EQ(decide(r, 0.05), Verdict::Unchanged) << "seed " << seed;
  }
}

TEST(PairedRatio, DriftSharedByBothKernelsCancels) {
  // The machine slows down 40% halfway; both kernels see it in the same round.
  std::vector<double> base, cur;
  for (int i = 0; i < 16; ++i) {
    const double machine = i < 8 ? 1.0 : 1.4;
    base.push_back(1e-3 * machine);
    cur.push_back(1e-3 * machine * (i % 2 ? 1.01 : 0.99));
  }
  const PairedRatio r = paired_speed_ratio(base, cur);
  EXPECT_NEAR(r.median, 1.0, 0.011);
  EXPECT_EQ(decide(r, 0.05), Verdict::Unchanged);
}

TEST(PairedRatio, SlowerAndFasterBeyondTheThreshold) {
  const PairedRatio slower = paired_speed_ratio(noisy(1e-3, 15, 0.03, 1), noisy(2e-3, 15, 0.03, 2));
  EXPECT_NEAR(slower.median, 0.5, 0.03);
  EXPECT_LT(slower.high, 1.0);
  EXPECT_EQ(decide(slower, 0.05), Verdict::Slower);
  const PairedRatio faster = paired_speed_ratio(noisy(1.2e-3, 15, 0.02, 3), noisy(1e-3, 15, 0.02, 4));
  EXPECT_EQ(decide(faster, 0.05), Verdict::Faster);
  // 3% slower, clearly measured, but within a 5% threshold: not an alarm.
  const PairedRatio small = paired_speed_ratio(noisy(1e-3, 15, 0.001, 5), noisy(1.03e-3, 15, 0.001, 6));
  EXPECT_LT(small.high, 1.0);
  EXPECT_EQ(decide(small, 0.05), Verdict::Unchanged);
  EXPECT_EQ(decide(small, 0.02), Verdict::Slower);
}

TEST(PairedRatio, OneOutlierRoundDoesNotDecide) {
  std::vector<double> base(15, 1e-3), cur(15, 1e-3);
  cur[7] = 50e-3;  // a page-fault storm in one round
  EXPECT_EQ(decide(paired_speed_ratio(base, cur), 0.05), Verdict::Unchanged);
}

TEST(PairedRatio, RejectsWhatItCannotJudge) {
  EXPECT_THROW(paired_speed_ratio({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}), std::invalid_argument);
  EXPECT_THROW(paired_speed_ratio(std::vector<double>(8, 1), std::vector<double>(7, 1)), std::invalid_argument);
  EXPECT_THROW(paired_speed_ratio(std::vector<double>(8, 1), std::vector<double>(8, 0)), std::invalid_argument);
}

void expect_suite_error(const std::string& text, const std::string& fragment) {
  SCOPED_TRACE(text);
  try {
    parse_suite(text, "s.json");
    ADD_FAILURE() << "no error";
  } catch (const SuiteError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("s.json: ", 0), 0u) << e.what();
  }
}

TEST(Suite, ReadsTheDocumentedForm) {
  const Suite s = parse_suite(R"({"key": "k", "threshold": 0.04, "rounds": 9, "workloads": [
      {"name": "a", "op": "dense", "shape": [8, 16, 32], "threshold": 0.1},
      {"op": "dense", "shape": [16, 16, 16]}]})",
                              "s.json");
  EXPECT_EQ(s.key, "k");
  EXPECT_EQ(s.rounds, 9);
  ASSERT_EQ(s.workloads.size(), 2u);
  EXPECT_EQ(s.workloads[0].name, "a");
  EXPECT_EQ(s.workloads[1].name, "dense[16,16,16]");
  EXPECT_DOUBLE_EQ(s.threshold_for(s.workloads[0], std::nullopt), 0.1);
  EXPECT_DOUBLE_EQ(s.threshold_for(s.workloads[1], std::nullopt), 0.04);
  EXPECT_DOUBLE_EQ(s.threshold_for(s.workloads[0], 0.2), 0.2);
}

TEST(Suite, BadSuitesNameWhatIsWrong) {
  expect_suite_error("{\"workloads\": [", "not valid JSON");
  expect_suite_error("[]", "JSON object");
  expect_suite_error("{}", "\"workloads\" must be a non-empty list");
  expect_suite_error(R"({"workloads": [{"op": "conv9d", "shape": [1, 2, 3]}]})",
                     "workloads[0]: unknown workload: no operator \"conv9d\"");
  expect_suite_error(R"({"workloads": [{"op": "dense", "shape": [1, 2]}]})",
                     "workloads[0]: unknown workload dense[1,2]");
  expect_suite_error(R"({"workloads": [{"op": "dense", "shape": [4, 4, 4], "threshold": 1.5}]})",
                     "workloads[0].threshold: 1.5 is out of range");
  expect_suite_error(R"({"threshold": 0, "workloads": [{"op": "dense", "shape": [4, 4, 4]}]})",
                     "threshold: 0 is out of range");
  expect_suite_error(R"({"rounds": 3, "workloads": [{"op": "dense", "shape": [4, 4, 4]}]})", "rounds: 3 (6..1000)");
  expect_suite_error(
      R"({"workloads": [{"name": "x", "op": "dense", "shape": [4, 4, 4]}, {"name": "x", "op": "dense", "shape": [8, 8, 8]}]})",
      "the name \"x\" is used twice");
  expect_suite_error(R"({"workload": []})", "unknown field \"workload\"");
  expect_suite_error(R"({"workloads": [{"op": "dense", "shape": [4, 4, 4], "treshold": 0.1}]})",
                     "unknown field \"treshold\"");
  expect_suite_error(R"({"workloads": [{"op": "dense"}]})", "workloads[0]: missing \"shape\"");
  expect_suite_error(R"({"workloads": [{"op": "dense", "shape": true}]})",
                     "workloads[0].shape: expected a list of extents");
}

TEST(Suite, ThresholdsFromTheCommandLine) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%", "--threshold"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("0.1", "--threshold"), 0.1);
  EXPECT_THROW(parse_threshold("150%", "--threshold"), SuiteError);
  EXPECT_THROW(parse_threshold("-1", "--threshold"), SuiteError);
  EXPECT_THROW(parse_threshold("five", "--threshold"), SuiteError);
  EXPECT_THROW(parse_threshold("", "--threshold"), SuiteError);
}

// A small well-formedness check: every tag closes in order, attributes are quoted, text holds no
// raw '<' and every '&' starts an entity. Returns the names of the <testcase> elements.
std::vector<std::string> well_formed_testcases(const std::string& x, std::string* error) {
  std::vector<std::string> stack, cases;
  size_t i = 0;
  auto fail = [&](const std::string& what) {
    *error = what + " at offset " + std::to_string(i);
    return std::vector<std::string>{};
  };
  while (i < x.size()) {
    if (x[i] == '&') {
      const size_t semi = x.find(';', i);
      const std::string ent = semi == std::string::npos ? "" : x.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
        return fail("a bare &");
      i = semi + 1;
      continue;
    }
    if (x[i] != '<') {
      ++i;
      continue;
    }
    const size_t end = x.find('>', i);
    if (end == std::string::npos) return fail("an unclosed tag");
    std::string tag = x.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.front() == '?') continue;
    if (tag.front() == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return fail("</" + tag.substr(1) + "> closes nothing open");
      stack.pop_back();
      continue;
    }
    const bool self_closing = tag.back() == '/';
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find(' '));
    // Attributes: name="value" pairs, values without '<' or '"'.
    size_t a = name.size();
    while (a < tag.size()) {
      while (a < tag.size() && tag[a] == ' ') ++a;
      if (a >= tag.size()) break;
      const size_t eq = tag.find("=\"", a);
      if (eq == std::string::npos) return fail("an unquoted attribute in <" + name + ">");
      const size_t close = tag.find('"', eq + 2);
      if (close == std::string::npos) return fail("an unterminated attribute in <" + name + ">");
      const std::string value = tag.substr(eq + 2, close - eq - 2);
      if (value.find('<') != std::string::npos) return fail("'<' in an attribute");
      if (name == "testcase" && tag.substr(a, eq - a) == "name") cases.push_back(value);
      a = close + 1;
    }
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return fail("<" + stack.back() + "> never closed");
  return cases;
}

RegressReport sample_report() {
  RegressReport r;
  r.baseline = "ci";
  r.device = "host:1 <&>";
  r.rounds = 15;
  WorkloadVerdict a;
  a.name = "gemm-256";
  a.workload_key = "dense[256,256,256]";
  a.status = "unchanged";
  a.ratio = {1.002, 0.99, 1.01, 0.965, 15};
  a.threshold = 0.05;
  WorkloadVerdict b = a;
  b.name = "bert \"ffn1\" <big> & slow";
  b.status = "slower";
  b.ratio = {0.41, 0.40, 0.42, 0.965, 15};
  b.current_config = parse_json(R"({"vectorize": false})");
  WorkloadVerdict c = a;
  c.name = "gemm-512";
  c.status = "failed";
  c.error = "board h:2 is gone (stream ended); the item was bound to it";
  WorkloadVerdict d = a;
  d.name = "gemm-1024";
  d.status = "no_baseline";
  d.error = "baseline 'ci' has no entry for dense[1024,1024,1024]";
  r.workloads = {a, b, c, d};
  return r;
}

TEST(Report, JUnitIsWellFormedWithATestCasePerWorkload) {
  const RegressReport r = sample_report();
  const std::string x = to_junit(r);
  std::string error;
  const auto cases = well_formed_testcases(x, &error);
  ASSERT_TRUE(error.empty()) << error << "\n" << x;
  ASSERT_EQ(cases.size(), 4u) << x;
  EXPECT_EQ(cases[1], "bert &quot;ffn1&quot; &lt;big&gt; &amp; slow");
  EXPECT_NE(x.find("failures=\"1\" errors=\"1\" skipped=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("<failure type=\"slower\""), std::string::npos);
  EXPECT_NE(x.find("<error type=\"failed\""), std::string::npos);
}

TEST(Report, ExitCodesJsonAndMarkdown) {
  RegressReport r = sample_report();
  EXPECT_EQ(r.exit_code(), 2);  // a failed workload makes the run failed
  r.workloads.erase(r.workloads.begin() + 2);
  EXPECT_EQ(r.exit_code(), 1);  // something slower
  r.workloads.erase(r.workloads.begin() + 1);
  EXPECT_EQ(r.exit_code(), 0);
  r.workloads.erase(r.workloads.begin());
  EXPECT_EQ(r.exit_code(), 2);  // nothing compared at all
  const RegressReport full = sample_report();
  const Json j = parse_json(to_json(full).dump());
  EXPECT_EQ(j.at("workloads").size(), 4u);
  EXPECT_EQ(j.at("workloads")[1].at("status").get<std::string>(), "slower");
  EXPECT_DOUBLE_EQ(j.at("workloads")[1].at("speed_ratio").get<double>(), 0.41);
  EXPECT_EQ(j.at("exit_code").get<int64_t>(), 2);
  const std::string md = to_markdown(full);
  EXPECT_NE(md.find("| gemm-256 | unchanged | 1.002 | 0.990-1.010 |"), std::string::npos) << md;
  EXPECT_NE(md.find("**slower**"), std::string::npos) << md;
}

}  // namespace
}  // namespace tf::regress

// conv2d through the command line as a user types it: named shapes for every command that takes
// one, tune / best / history / plot / run on a small layer, submit to a fleet, and baseline +
// regress from a suite. Real processes, real SQLite files.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"

namespace {

const std::string kNamed = "n=1,c=8,h=10,w=12,k=16,r=3,s=3,pad=1";
const std::string kPositional = "1,8,10,12,16,3,3,1,1,1,1,1,1,1";

std::string temp_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "tf-conv2d-" + name + "-" + std::to_string(::getpid());
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  return dir;
}

void expect_refused(const std::string& args, const std::string& says) {
  Result r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Conv2dCli, SpaceAndLowerTakeNamedAndPositionalShapes) {
  Result named = run_cli("space --op conv2d --shape " + kNamed + " --json");
  ASSERT_EQ(named.exit_code, 0) << named.err;
  Result positional = run_cli("space --op conv2d --shape " + kPositional + " --json");
  ASSERT_EQ(positional.exit_code, 0) << positional.err;
  EXPECT_EQ(named.out, positional.out);
  EXPECT_GT(tf::parse_json(named.out).at("size").get<int64_t>(), 10);

  Result lower = run_cli("lower --op conv2d_bias_add_relu --shape " + kNamed +
                         ",stride=2 --config '{\"kb\": 4, \"pad\": \"copy\"}'");
  ASSERT_EQ(lower.exit_code, 0) << lower.err;
  EXPECT_NE(lower.out.find("data.padded"), std::string::npos) << lower.out;
  EXPECT_NE(lower.out.find("residual"), std::string::npos) << lower.out;

  Result ops = run_cli("ops");
  EXPECT_NE(ops.out.find("conv2d_bias_clip"), std::string::npos) << ops.out;
  // Dense takes named extents too.
  EXPECT_EQ(run_cli("space --op dense --shape K=64,M=32,N=48 --json").out,
            run_cli("space --op dense --shape 32,48,64 --json").out);
}

TEST(Conv2dCli, ShapesThatMakeNoSenseAreRefusedNamingTheField) {
  expect_refused("space --op conv2d --shape c=6,h=5,w=5,k=4,r=3,s=3,groups=4", "groups = 4 does not divide c = 6");
  expect_refused("space --op conv2d --shape c=6,h=5,w=5,k=4,r=9,s=3", "r = 9");
  expect_refused("lower --op conv2d --shape c=6,h=5,w=5,k=4,r=3,s=3,stride=0", "stride = 0 must be positive");
  expect_refused("space --op conv2d --shape c=64,h=56", "--shape: conv2d shape: w= is missing");
  expect_refused("space --op conv2d --shape c=6,h=5,w=5,k=4,r=3,s=3,padd=1", "unknown extent 'padd'");
  expect_refused("space --op conv2d --shape c=6,h=x,w=5,k=4,r=3,s=3", "h 'x' is not an integer");
  expect_refused("space --op conv2d --shape 1,6,5,5", "14 extents");
  expect_refused("space --op dense --shape M=8,N=8", "K= is missing");
  expect_refused("run --op conv2d", "--shape is required");
}

TEST(Conv2dCliTune, TuneWithXgbThenBestHistoryPlotAndRunByEitherShape) {
  const std::string dir = temp_dir("tune");
  const std::string db = dir + "/t.db";
  Result tune = run_cli("tune --op conv2d_bias_relu --shape " + kNamed +
                        " --trials 12 --batch 4 --min-ms 1 --tuner xgb --db " + db + " --json");
  ASSERT_EQ(tune.exit_code, 0) << tune.err << tune.out;
  const tf::Json t = tf::parse_json(tune.out);
  EXPECT_EQ(t.at("ok").get<int64_t>(), 12) << tune.out;

  // The db key is positional: the best is found whichever way the shape is typed.
  Result by_name = run_cli("best --op conv2d_bias_relu --shape " + kNamed + " --db " + db + " --json");
  Result by_position = run_cli("best --op conv2d_bias_relu --shape " + kPositional + " --db " + db + " --json");
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(by_name.out, by_position.out);
  EXPECT_GT(tf::parse_json(by_name.out).at("gflops").get<double>(), 0);

  Result history = run_cli("history --op conv2d_bias_relu --shape " + kNamed + " --db " + db);
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(std::count(history.out.begin(), history.out.end(), '\n'), 12) << history.out;
  const std::string svg = dir + "/p.svg";
  ASSERT_EQ(run_cli("plot --op conv2d_bias_relu --shape " + kNamed + " --db " + db + " -o " + svg).exit_code, 0);
  EXPECT_NE(tf::fleet_test::read_all(svg).find("<svg"), std::string::npos);

  Result run =
      run_cli("run --op conv2d_bias_relu --shape " + kNamed + " --config best --db " + db + " --json --min-ms 1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tf::parse_json(run.out).at("check").get<std::string>(), "pass") << run.out;
  std::system(("rm -rf " + dir).c_str());
}

TEST(Conv2dCliTune, SubmitANamedShapeAndAJobFileOfEveryFormToAFleet) {
  tf::fleet_test::Fleet fleet("conv2d-submit");
  fleet.start_tracker();
  fleet.start_board("conv");
  const std::string where = " --tracker " + fleet.address();

  Result r = run_cli("submit --op conv2d_bias_clip --shape " + kNamed +
                     ",groups=8 --key conv --trials 4 --tuner xgb --min-ms 1 --follow --json" + where);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out << fleet.tracker().output();

  const std::string job = fleet.dir() + "/job.json";
  std::ofstream(job) << R"({"workloads": [{"op": "conv2d", "shape": "c=4,h=7,w=9,k=6,r=3,s=3,stride=2,pad=1"},
                                          {"op": "conv2d_bias", "shape": {"c": 4, "h": 7, "w": 9, "k": 8, "r": 1, "s": 1}}],
                           "key": "conv", "trials": 3, "tuner": "random", "measure": {"min_repeat_ms": 1}})";
  r = run_cli("submit --job " + job + " --follow --json" + where);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out << fleet.tracker().output();

  Result best = run_cli("best --op conv2d_bias --shape c=4,h=7,w=9,k=8,r=1,s=1 --key conv --json" + where);
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_GT(tf::parse_json(best.out).at("gflops").get<double>(), 0) << best.out;

  expect_refused("submit --op conv2d --shape c=4,h=7,w=9,k=6,r=3,s=3,groups=3 --key conv" + where,
                 "groups = 3 does not divide c = 4");
  std::ofstream(job)
      << R"({"workloads": [{"op": "conv2d", "shape": {"c": 4, "h": 7, "w": 9, "k": 6, "r": 3, "z": 3}}], "key": "conv"})";
  expect_refused("submit --job " + job + where, "workloads[0].shape: conv2d shape: unknown extent 'z'");
}

TEST(Conv2dRegressCli, BaselineSaveAndRegressOnANamedShapeSuite) {
  const std::string dir = temp_dir("regress");
  const std::string db = dir + "/t.db", suite = dir + "/suite.json";
  std::ofstream(suite) << R"({"rounds": 7, "workloads": [
      {"name": "resblock", "op": "conv2d_bias_add_relu", "shape": "c=8,h=10,w=12,k=8,r=3,s=3,pad=1"},
      {"name": "dw", "op": "conv2d_bias_clip", "shape": {"c": 8, "h": 12, "w": 12, "k": 8, "r": 3, "s": 3, "pad": 1, "groups": 8}}]})";
  Result tune = run_cli("tune --suite " + suite + " --trials 4 --tuner random --min-ms 2 --repeat 2 --json --db " + db);
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  const std::string args = " --suite " + suite + " --local --db " + db + " --min-ms 10";
  Result save = run_cli("baseline save ci" + args);
  ASSERT_EQ(save.exit_code, 0) << save.err << save.out;
  EXPECT_NE(save.out.find("baseline 'ci' saved: 2 workload(s)"), std::string::npos) << save.out;
  const std::string json = dir + "/r.json";
  Result r = run_cli("regress --baseline ci" + args + " --json " + json);
  // The verdict on kernels this small may be noisy; what must hold is that both were compared.
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err << r.out;
  const tf::Json report = tf::parse_json(tf::fleet_test::read_all(json));
  ASSERT_EQ(report.at("workloads").size(), 2u) << report.dump();
  for (const auto& w : report.at("workloads")) EXPECT_NE(w.at("status").get<std::string>(), "error") << w.dump();
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace

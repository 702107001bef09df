// `tunefarm baseline` and `tunefarm regress` as CI runs them: real processes, a real SQLite file,
// kernels measured in a worker process on this host (the fleet's Compare is in fleet_regress_test).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/files.h"
#include "support/json.h"
#include "tests/cli_runner.h"

namespace {

std::string slurp(const std::string& path) { return tf::try_read_file(path).value_or(""); }

class RegressCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir() + "tf-regress-" + std::to_string(::getpid());
    std::system(("rm -rf " + dir_ + " && mkdir -p " + dir_).c_str());
    db_ = dir_ + "/t.db";
    suite_ = dir_ + "/suite.json";
    std::ofstream(suite_) << R"({"rounds": 15, "workloads": [
        {"name": "gemm-128", "op": "dense", "shape": [128, 128, 128]},
        {"name": "tall", "op": "dense", "shape": [256, 64, 128], "threshold": 0.08}]})";
    // Every workload of the suite tuned briefly, as the CI recipe does.
    Result r =
        run_cli("tune --suite " + suite_ + " --trials 6 --tuner random --min-ms 2 --repeat 2 --json --db " + db_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(tf::parse_json(r.out).size(), 2u) << r.out;
  }
  void TearDown() override {
    if (!HasFailure()) std::system(("rm -rf " + dir_).c_str());
  }
  std::string run_args() const { return " --suite " + suite_ + " --local --db " + db_ + " --min-ms 20"; }
  // What a bad command must leave untouched.
  std::string db_state() {
    return run_cli("baseline list --json --db " + db_).out + run_cli("export --db " + db_ + " -o /dev/stdout").out;
  }

  std::string dir_, db_, suite_;
};

TEST_F(RegressCli, SameBuildIsUnchangedRunAfterRunAndASlowerConfigFails) {
  Result save = run_cli("baseline save ci" + run_args());
  ASSERT_EQ(save.exit_code, 0) << save.err << save.out;
  EXPECT_NE(save.out.find("baseline 'ci' saved: 2 workload(s)"), std::string::npos) << save.out;
  EXPECT_NE(save.err.find("timing isolation: host-wide lock"), std::string::npos) << save.err;

  Result list = run_cli("baseline list --json --db " + db_);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(tf::parse_json(list.out).at(0).at("workloads").get<int64_t>(), 2);
  Result show = run_cli("baseline show ci --json --db " + db_);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const tf::Json shown = tf::parse_json(show.out);
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_GT(shown[0].at("library_bytes").get<int64_t>(), 1000);
  EXPECT_EQ(shown[0].at("costs").size(), 15u);
  EXPECT_FALSE(shown[0].at("compiler_version").get<std::string>().empty());

  // The same compiler and configs against the baseline: no false alarm, twice.
  for (int run = 0; run < 2; ++run) {
    const std::string junit = dir_ + "/junit.xml", json = dir_ + "/r.json", md = dir_ + "/r.md";
    Result r =
        run_cli("regress --baseline ci" + run_args() + " --junit " + junit + " --json " + json + " --markdown " + md);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const tf::Json report = tf::parse_json(slurp(json));
    for (const auto& w : report.at("workloads")) {
      EXPECT_EQ(w.at("status").get<std::string>(), "unchanged") << w.dump();
      // The verdict is what must hold; the ratio only has to be sane (tiny kernels on a machine
      // running other tests at once move by several percent).
      EXPECT_NEAR(w.at("speed_ratio").get<double>(), 1.0, 0.15) << w.dump();
      EXPECT_FALSE(w.at("config_changed").get<bool>());
    }
    EXPECT_NE(slurp(md).find("| gemm-128 | unchanged |"), std::string::npos) << slurp(md);
    EXPECT_EQ(r.out, slurp(md));
    const std::string x = slurp(junit);
    EXPECT_NE(x.find("<testcase classname=\"tunefarm.regress.ci\" name=\"gemm-128\""), std::string::npos) << x;
    EXPECT_NE(x.find("name=\"tall\""), std::string::npos) << x;
    EXPECT_NE(x.find("failures=\"0\" errors=\"0\""), std::string::npos) << x;
  }

  // A config several times slower becomes gemm-128's best (as an import from another farm could
  // make it): the current build is that config, and the run says so with exit 1.
  tf::Json slow = shown[0].at("config");
  slow["vectorize"] = false;
  slow["mr"] = 1;
  slow["unroll_k"] = 1;
  const std::string record = dir_ + "/slow.jsonl";
  std::ofstream(record)
      << R"({"workload": {"op": "dense", "shape": [128, 128, 128], "dtype": "float32"}, "target": {"target": )"
      << tf::Json(shown[0].at("target").get<std::string>()).dump() << R"(, "device_key": "local"}, "config": )"
      << slow.dump() << R"(, "costs": [1e-9], "outcome": "ok", "time": 1})"
      << "\n";
  ASSERT_EQ(run_cli("import --db " + db_ + " " + record).exit_code, 0);
  const std::string junit = dir_ + "/slow.xml", json = dir_ + "/slow.json";
  Result r = run_cli("regress --baseline ci" + run_args() + " --junit " + junit + " --json " + json);
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const tf::Json report = tf::parse_json(slurp(json));
  const auto& gemm = report.at("workloads").at(0);
  EXPECT_EQ(gemm.at("status").get<std::string>(), "slower") << gemm.dump();
  EXPECT_LT(gemm.at("speed_ratio").get<double>(), 0.5) << gemm.dump();
  EXPECT_TRUE(gemm.at("config_changed").get<bool>());
  EXPECT_EQ(report.at("workloads").at(1).at("status").get<std::string>(), "unchanged");
  EXPECT_NE(slurp(junit).find("<failure type=\"slower\""), std::string::npos);
  EXPECT_NE(r.out.find("**slower**"), std::string::npos) << r.out;

  // Deleting the baseline; a second delete is an error.
  EXPECT_EQ(run_cli("baseline delete ci --db " + db_).exit_code, 0);
  EXPECT_EQ(run_cli("baseline delete ci --db " + db_).exit_code, 2);
}

TEST_F(RegressCli, BadInputExitsTwoAndChangesNothing) {
  ASSERT_EQ(run_cli("baseline save ci" + run_args()).exit_code, 0);
  const std::string before = db_state();
  auto expect_2 = [&](const std::string& args, const std::string& fragment) {
    SCOPED_TRACE(args);
    Result r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  };
  expect_2("regress --baseline nope" + run_args(), "no baseline named 'nope'");
  std::ofstream(dir_ + "/unknown.json") << R"({"workloads": [{"op": "conv9d", "shape": [1, 2, 3]}]})";
  expect_2("regress --baseline ci --suite " + dir_ + "/unknown.json --local --db " + db_, "unknown workload");
  std::ofstream(dir_ + "/malformed.json") << R"({"workloads": [{"op": "dense", )";
  expect_2("regress --baseline ci --suite " + dir_ + "/malformed.json --local --db " + db_, "not valid JSON");
  expect_2("regress --baseline ci --threshold 150%" + run_args(), "--threshold: 1.5 is out of range");
  expect_2("regress --baseline ci --suite " + dir_ + "/none.json --local --db " + db_, "cannot read the suite file");
  expect_2("regress --baseline ci --suite " + suite_ + " --db " + db_, "say where to measure");
  expect_2("baseline save ci" + run_args(), "baseline 'ci' exists");
  expect_2("baseline save other --suite " + dir_ + "/unknown.json --local --db " + db_, "unknown workload");
  expect_2("baseline show nope --db " + db_, "no baseline named 'nope'");
  expect_2("baseline frobnicate", "unknown subcommand 'frobnicate'");
  expect_2("regress --baseline ci --suite " + suite_ + " --local --db " + dir_ + "/typo.db", "no database at");
  expect_2("baseline list --db " + dir_ + "/typo.db", "no database at");
  EXPECT_NE(::access((dir_ + "/typo.db").c_str(), F_OK), 0) << "a mistyped --db left a file behind";
  EXPECT_EQ(db_state(), before);
}

TEST_F(RegressCli, AnUntunedWorkloadIsReportedOrTunedFirst) {
  std::ofstream(dir_ + "/more.json") << R"({"rounds": 6, "workloads": [
      {"name": "gemm-128", "op": "dense", "shape": [128, 128, 128]},
      {"name": "new", "op": "dense", "shape": [64, 64, 64]}]})";
  const std::string args = " --suite " + dir_ + "/more.json --local --db " + db_ + " --min-ms 5";
  Result r = run_cli("baseline save more" + args + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const tf::Json saved = tf::parse_json(r.out);
  EXPECT_EQ(saved.at("workloads")[1].at("status").get<std::string>(), "untuned");
  EXPECT_NE(saved.at("workloads")[1].at("error").get<std::string>().find("no tuned config for dense[64,64,64]"),
            std::string::npos);
  // regress: the workload the baseline lacks is reported, gemm-128 compared.
  const std::string json = dir_ + "/more-report.json";
  r = run_cli("regress --baseline more" + args + " --json " + json);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(tf::parse_json(slurp(json)).at("workloads")[1].at("status").get<std::string>(), "no_baseline");
  // --tune-missing tunes it first, and then it is part of the baseline.
  r = run_cli("baseline save more --replace --tune-missing 4" + args + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(tf::parse_json(r.out).at("workloads")[1].at("status").get<std::string>(), "saved");
}

// A suite measured with 2 threads is tuned with 2 threads: baseline save then finds every workload tuned.
TEST_F(RegressCli, TuneSuiteHonoursTheSuitesThreadsAndTarget) {
  const std::string suite = dir_ + "/threads.json";
  std::ofstream(suite) << R"({"threads": 2, "target": "llvm", "rounds": 6, "workloads": [
      {"name": "small", "op": "dense", "shape": [32, 48, 40]}]})";
  Result tune =
      run_cli("tune --suite " + suite + " --trials 4 --tuner random --min-ms 1 --repeat 1 --json --db " + db_);
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  Result best = run_cli("best --op dense --shape 32,48,40 --threads 2 --target llvm --json --db " + db_);
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(tf::parse_json(best.out).at("target").at("device_key").get<std::string>(), "local-2t");
  Result save = run_cli("baseline save threads --suite " + suite + " --local --min-ms 2 --json --db " + db_);
  ASSERT_EQ(save.exit_code, 0) << save.err << save.out;
  EXPECT_EQ(tf::parse_json(save.out).at("workloads").at(0).at("status").get<std::string>(), "saved") << save.out;
  // The command line still wins over the suite.
  Result one = run_cli("tune --suite " + suite +
                       " --threads 1 --trials 2 --tuner random --min-ms 1 --repeat 1 --json --db " + db_);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(run_cli("best --op dense --shape 32,48,40 --target llvm --db " + db_).exit_code, 0);
}

}  // namespace

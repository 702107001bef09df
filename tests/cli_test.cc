// The `tunefarm` command line, run as a separate process: bad input gets one clear error line and
// a non-zero exit, never a crash; good input gets the promised JSON.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "runtime/thread_pool.h"
#include "support/json.h"
#include "tests/cli_runner.h"

namespace {

void expect_clear_error(const std::string& args, const std::string& fragment) {
  Result r = run_cli(args);
  SCOPED_TRACE("tunefarm " + args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "expected one error line: " << r.err;
}

TEST(Cli, BadInputGetsOneClearErrorLine) {
  expect_clear_error("run --op conv9d --shape 1,2,3", "unknown op 'conv9d'");
  expect_clear_error("run --shape 0,4,4", "extent M = 0 must be positive");
  expect_clear_error("run --shape 4,-4,4", "extent N = -4");
  expect_clear_error("run --shape 100000000,100000000,100000000", "GiB");
  expect_clear_error("run --shape 4,4", "takes shape M,N,K");
  expect_clear_error("run --shape 4,x,4", "--shape: op 'dense': shape '4,x,4': extent 'x' is not an integer");
  expect_clear_error("run --shape 64,64,64 --config-index 999999999", "outside the space");
  expect_clear_error("run --shape 64,64,64 --config '{\"mr\": 6'", "invalid JSON");
  expect_clear_error("run --shape 64,64,64 --config '{\"mr\": 5}'", "knob 'mr' cannot be 5");
  expect_clear_error("run --shape 64,64,64 --target cuda", "target");
  expect_clear_error("run --shape 64,64,64 --target 'llvm -mcpu=no-such-cpu'", "no-such-cpu");
  expect_clear_error("run --shape 64,64,64 --threads 0", "--threads");
  expect_clear_error("space --shape 64,64,64 --bogus", "unknown option --bogus");
  expect_clear_error("frobnicate", "unknown command 'frobnicate'");
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* cmd : {"ops", "space", "lower", "run", "tune", "regress", "baseline", "baseline save",
                          "baseline list", "baseline show", "baseline delete", "model", "model inspect"}) {
    Result r = run_cli(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    EXPECT_NE(r.out.find("usage: tunefarm " + std::string(cmd)), std::string::npos) << r.out;
  }
}

TEST(Cli, SpaceJsonReportsTheSize) {
  Result r = run_cli("space --op dense --shape 512,512,512 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto v = tf::parse_json(r.out);
  EXPECT_GT(v.at("size").get<int64_t>(), 1000);
  EXPECT_EQ(v.at("knobs")[0].at("name").get<std::string>(), "mr");
}

TEST(Cli, RunJsonChecksPass) {
  Result space = run_cli("space --op dense --shape 1000,77,333 --json");
  ASSERT_EQ(space.exit_code, 0) << space.err;
  int64_t size = tf::parse_json(space.out).at("size").get<int64_t>();
  for (int64_t idx : {int64_t{0}, size / 2 + 17, size - 1}) {
    Result r = run_cli("run --op dense --shape 1000,77,333 --config-index " + std::to_string(idx) +
                       " --json --repeat 1 --min-ms 1 --threads 2");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto v = tf::parse_json(r.out);
    EXPECT_EQ(v.at("check").get<std::string>(), "pass") << r.out;
    EXPECT_GT(v.at("gflops").get<double>(), 0.0);
    EXPECT_EQ(v.at("config_index").get<int64_t>(), idx);
  }
}

TEST(Cli, LowerShowsTheLoopNest) {
  Result r = run_cli("lower --shape 64,64,64 --config '{\"mr\": 4, \"nr\": 16, \"pack_b\": true}'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("void tf_dense_64x64x64("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("B.packed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("C.local"), std::string::npos) << r.out;
}

}  // namespace

namespace {

TEST(CliTune, TuneThenBestThenRunBestThenExportImportRoundTrip) {
  const std::string dir = testing::TempDir();
  const std::string db = dir + "cli_tune.db", db2 = dir + "cli_tune_copy.db", lines = dir + "cli_records.jsonl";
  std::remove(db.c_str());
  std::remove(db2.c_str());
  Result tune =
      run_cli("tune --op dense --shape 32,48,40 --trials 6 --batch 3 --min-ms 1 --tuner random --db " + db + " --json");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  tf::Json t = tf::parse_json(tune.out);
  EXPECT_EQ(t.at("trials").get<int64_t>(), 6);
  EXPECT_GT(t.at("best_gflops").get<double>(), 0);
  EXPECT_NE(t.at("timing_isolation").get<std::string>().find("lock"), std::string::npos);
  if (tf::runtime::usable_cpus().size() >= 2) {
    // A 1-thread kernel leaves a core to the builds: it is pinned, and they leave its core to it.
    const std::string cpu = std::to_string(tf::runtime::usable_cpus().back());
    EXPECT_NE(t.at("timing_isolation").get<std::string>().find("kernel pinned to CPU " + cpu), std::string::npos)
        << t.at("timing_isolation");
  }

  Result best = run_cli("best --op dense --shape 32,48,40 --db " + db + " --json");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  Result run = run_cli("run --op dense --shape 32,48,40 --config best --db " + db + " --json --min-ms 1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tf::parse_json(run.out).at("check").get<std::string>(), "pass");
  EXPECT_EQ(tf::parse_json(run.out).at("config").dump(), tf::parse_json(best.out).at("config").dump());

  const std::string svg = dir + "cli_curve.svg";
  Result plot = run_cli("plot --op dense --shape 32,48,40 --db " + db + " -o " + svg);
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  {
    std::FILE* f = std::fopen(svg.c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string text(1 << 16, '\0');
    text.resize(std::fread(text.data(), 1, text.size(), f));
    std::fclose(f);
    EXPECT_EQ(text.rfind("<svg", 0), 0u);
    EXPECT_NE(text.find("<polyline"), std::string::npos);
    EXPECT_NE(text.find("random (job 1)"), std::string::npos) << "one curve per tuning run, labelled";
  }
  // Runs of another target or thread count are not this workload's curve.
  for (const std::string other : {" --threads 2", " --target 'llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1'"}) {
    Result elsewhere = run_cli("plot --op dense --shape 32,48,40 --db " + db + " -o " + svg + other);
    EXPECT_EQ(elsewhere.exit_code, 1) << other << ": " << elsewhere.out;
    EXPECT_NE(elsewhere.err.find("no tuning runs"), std::string::npos) << elsewhere.err;
  }

  ASSERT_EQ(run_cli("export --db " + db + " -o " + lines).exit_code, 0);
  Result first = run_cli("import --db " + db2 + " " + lines + " --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(tf::parse_json(first.out).at("added").get<int64_t>(), 6);
  Result second = run_cli("import --db " + db2 + " " + lines + " --json");
  EXPECT_EQ(tf::parse_json(second.out).at("added").get<int64_t>(), 0);
  EXPECT_EQ(tf::parse_json(second.out).at("already_present").get<int64_t>(), 6);

  // A bad line is counted and skipped; the good ones still import.
  {
    FILE* f = std::fopen(lines.c_str(), "a");
    std::fputs("{\"workload\": 3}\nnot json at all\n", f);
    std::fclose(f);
  }
  std::remove(db2.c_str());
  Result mixed = run_cli("import --db " + db2 + " " + lines + " --json");
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_EQ(tf::parse_json(mixed.out).at("added").get<int64_t>(), 6);
  EXPECT_EQ(tf::parse_json(mixed.out).at("bad_lines").get<int64_t>(), 2);
  EXPECT_NE(mixed.err.find("line 7"), std::string::npos) << mixed.err;
}

// A config's speed at 2 threads says little about 1: each thread count has its own bests.
TEST(CliTune, EachThreadCountIsTunedApart) {
  const std::string db = testing::TempDir() + "cli_threads.db";
  std::remove(db.c_str());
  Result tune = run_cli("tune --op dense --shape 32,48,40 --trials 4 --min-ms 1 --tuner random --threads 2 --db " + db +
                        " --json");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  Result one = run_cli("best --op dense --shape 32,48,40 --db " + db);
  EXPECT_EQ(one.exit_code, 1) << "nothing was measured at 1 thread";
  Result two = run_cli("best --op dense --shape 32,48,40 --threads 2 --db " + db + " --json");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(tf::parse_json(two.out).at("target").at("device_key").get<std::string>(), "local-2t");
  Result run = run_cli("run --op dense --shape 32,48,40 --config best --threads 2 --min-ms 1 --db " + db + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tf::parse_json(run.out).at("check").get<std::string>(), "pass");
  Result run1 = run_cli("run --op dense --shape 32,48,40 --config best --min-ms 1 --db " + db);
  EXPECT_EQ(run1.exit_code, 2);
  EXPECT_NE(run1.err.find("--threads"), std::string::npos) << run1.err;
}

TEST(CliTune, BadInputIsRefused) {
  const std::string dir = testing::TempDir();
  expect_clear_error("tune --op dense --shape 8,8,8 --tuner annealing --db " + dir + "x.db", "annealing");
  expect_clear_error("tune --op dense --shape 8,8,8 --trials 0 --db " + dir + "x.db", "--trials");
  expect_clear_error("best --op dense --shape 8,8,8 --db " + dir + "missing.db", "no database");
  expect_clear_error("run --op dense --shape 8,8,8 --config best --db " + dir + "missing.db", "no database");
  {
    std::string notdb = dir + "not_a_db.db";
    FILE* f = std::fopen(notdb.c_str(), "w");
    std::fputs("this is not sqlite", f);
    std::fclose(f);
    Result r = run_cli("best --op dense --shape 8,8,8 --db " + notdb);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.exit_code, 3) << "not an internal error: " << r.err;
  }
}

}  // namespace

// The `tunefarm` command line, run as a separate process: bad input gets one clear error line and
// a non-zero exit, never a crash; good input gets the promised JSON.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "support/json.h"

namespace {

struct Result {
  int exit_code;
  std::string out, err;
};

Result run_cli(const std::string& args) {
  std::string err_file = testing::TempDir() + "cli_stderr.txt";
  std::string cmd = std::string(TF_CLI) + " " + args + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  Result r{-1, "", ""};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (FILE* e = fopen(err_file.c_str(), "r")) {
    while ((n = fread(buf.data(), 1, buf.size(), e)) > 0) r.err.append(buf.data(), n);
    fclose(e);
  }
  return r;
}

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
  expect_clear_error("run --shape 4,x,4", "comma-separated integers");
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
  for (const char* cmd : {"ops", "space", "lower", "run"}) {
    Result r = run_cli(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("usage: tunefarm " + std::string(cmd)), std::string::npos) << r.out;
  }
}

TEST(Cli, SpaceJsonReportsTheSize) {
  Result r = run_cli("space --op dense --shape 512,512,512 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto v = tf::json::parse(r.out);
  EXPECT_GT(v.at("size").as_int(), 1000);
  EXPECT_EQ(v.at("knobs").items()[0].at("name").as_string(), "mr");
}

TEST(Cli, RunJsonChecksPass) {
  Result space = run_cli("space --op dense --shape 1000,77,333 --json");
  ASSERT_EQ(space.exit_code, 0) << space.err;
  int64_t size = tf::json::parse(space.out).at("size").as_int();
  for (int64_t idx : {int64_t{0}, size / 2 + 17, size - 1}) {
    Result r = run_cli("run --op dense --shape 1000,77,333 --config-index " + std::to_string(idx) +
                       " --json --repeat 1 --min-ms 1 --threads 2");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto v = tf::json::parse(r.out);
    EXPECT_EQ(v.at("check").as_string(), "pass") << r.out;
    EXPECT_GT(v.at("gflops").as_double(), 0.0);
    EXPECT_EQ(v.at("config_index").as_int(), idx);
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

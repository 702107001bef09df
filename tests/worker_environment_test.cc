// A kernel runs in the measuring worker: the worker must not inherit the board's token or any
// other variable it does not need.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/measure_worker.h"
#include "tests/test_kernels.h"

namespace tf {
namespace {

std::vector<std::string> environ_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> vars;
  for (size_t start = 0, end; start < all.size(); start = end + 1) {
    end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    vars.push_back(all.substr(start, end - start));
  }
  return vars;
}

TEST(WorkerEnvironment, OnlyAnAllowlistIsPassedOn) {
  const char* parent[] = {"PATH=/usr/bin",
                          "TUNEFARM_TOKEN=tf_secret",
                          "LC_ALL=C",
                          "AWS_SECRET_ACCESS_KEY=x",
                          "TUNEFARM_MEASURE_WORKER=/x",
                          "LANG=C.UTF-8",
                          "HOME=/root",
                          nullptr};
  EXPECT_EQ(runtime::worker_environment(parent),
            (std::vector<std::string>{"PATH=/usr/bin", "LC_ALL=C", "LANG=C.UTF-8"}));
}

TEST(WorkerEnvironment, TheWorkerProcessCannotSeeTheBoardsToken) {
  const std::vector<uint8_t> lib = test_kernels::build_test_library();
  ASSERT_FALSE(lib.empty());
  ::setenv("TUNEFARM_TOKEN", "tf_0123456789abcdef_board_secret", 1);
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(test_kernels::add_setup());
  runtime::MeasureOptions o;
  o.repeat = 1;
  o.min_repeat_ms = 1;
  o.timing_lock = "/tmp/tunefarm-test-timing.lock";
  const runtime::MeasureResult r = worker.measure(lib, "tf_ok", o);
  ::unsetenv("TUNEFARM_TOKEN");
  ASSERT_EQ(r.status, runtime::MeasureStatus::Ok) << r.error;
  ASSERT_GT(worker.pid(), 0);
  const std::vector<std::string> vars = environ_of(worker.pid());
  ASSERT_FALSE(vars.empty()) << "cannot read the worker's environment";
  for (const std::string& v : vars) EXPECT_EQ(v.find("TUNEFARM_TOKEN"), std::string::npos) << v;
  bool has_path = false;
  for (const std::string& v : vars) has_path = has_path || v.rfind("PATH=", 0) == 0;
  EXPECT_TRUE(has_path);
}

}  // namespace
}  // namespace tf

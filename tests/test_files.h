// The files tests share: the test models (scripts/make-models.py writes them into TF_MODELS_DIR),
// and fresh scratch folders and database paths under gtest's temp dir, named after the running
// test and this process so that tests run in parallel never share one. What a test made is removed
// when it passes and kept when it fails, for a look at what it left.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace tf::testing_support {

namespace detail {

class ScratchCleanup : public ::testing::EmptyTestEventListener {
 public:
  void made(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    paths_.push_back(path);
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    std::vector<std::string> paths;
    {
      std::lock_guard<std::mutex> lock(mu_);
      paths.swap(paths_);
    }
    if (!info.result()->Passed()) return;
    for (const std::string& p : paths) std::system(("rm -rf '" + p + "' '" + p + "-wal' '" + p + "-shm'").c_str());
  }

 private:
  std::mutex mu_;
  std::vector<std::string> paths_;
};

// Installed before main runs the tests; gtest owns (and deletes) the listener.
inline ScratchCleanup* const scratch_cleanup = [] {
  auto* cleanup = new ScratchCleanup;
  ::testing::UnitTest::GetInstance()->listeners().Append(cleanup);
  return cleanup;
}();

}  // namespace detail

// TF_MODELS_DIR/NAME.onnx.
inline std::string model_path(const std::string& name) { return std::string(TF_MODELS_DIR) + "/" + name + ".onnx"; }

// The small CNN most model tests use (an image classifier with a residual block).
inline std::string small_cnn() { return model_path("small_cnn"); }

// "Suite.Test-NAME-PID": unique to the running test, the name and this process.
inline std::string scratch_name(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
  for (char& ch : test) {
    if (ch == '/') ch = '_';  // parameterized tests: Suite/Param.Name/0
  }
  return "tf-" + test + "-" + name + "-" + std::to_string(::getpid());
}

// An empty folder of its own (emptied when it exists).
inline std::string scratch(const std::string& name) {
  const std::string dir = ::testing::TempDir() + scratch_name(name);
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  detail::scratch_cleanup->made(dir);
  return dir;
}

// A database path no file holds yet (nor its WAL and shared-memory files).
inline std::string fresh_path(const std::string& name) {
  const std::string p = ::testing::TempDir() + scratch_name(name) + ".db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((p + suffix).c_str());
  detail::scratch_cleanup->made(p);
  return p;
}

}  // namespace tf::testing_support

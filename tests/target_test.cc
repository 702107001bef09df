// Target strings: parsing, the host, boards described by their cpuinfo flags, and that checking a
// target never touches the process's stderr (the tracker's other threads log there).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "compiler/codegen/target.h"
#include "compiler/error.h"

namespace tf {
namespace {

std::string error_of(const std::string& text) {
  try {
    codegen::parse_target(text);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(Target, TheHostRoundTripsThroughItsString) {
  const codegen::Target host = codegen::host_target();
  EXPECT_NE(host.cpu, "native");
  const codegen::Target again = codegen::parse_target(host.str());
  EXPECT_EQ(again.str(), host.str());
  EXPECT_EQ(again.vector_bits, host.vector_bits);
  EXPECT_TRUE(codegen::host_can_run(again));
}

TEST(Target, UnknownCpusAndFeaturesAreNamed) {
  EXPECT_NE(error_of("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=pentium9000").find("CPU 'pentium9000' is unknown"), std::string::npos);
  EXPECT_NE(error_of("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64 -mattr=+avx2,+warpdrive").find("feature 'warpdrive' is unknown"),
            std::string::npos);
  EXPECT_NE(error_of("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64 -mattr=avx2").find("must start with + or -"), std::string::npos);
  EXPECT_NE(error_of("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+avx2").find("feature 'avx2' is unknown"), std::string::npos);
  EXPECT_EQ(error_of("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon"), "");
  EXPECT_EQ(codegen::parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72").vector_bits, 128);
}

TEST(Target, ABoardsFlagsGiveTheHighestX86LevelTheyCoverAndTheFeaturesBeyondIt) {
  const std::vector<std::string> v3 = {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3", "avx", "avx2", "bmi1",
                                       "bmi2", "f16c", "fma", "movbe", "xsave", "abm", "sha_ni", "not_a_feature"};
  const codegen::Target t = codegen::target_from_cpu_flags("x86_64-pc-linux-gnu", v3);
  EXPECT_EQ(t.cpu, "x86-64-v3");
  EXPECT_EQ(t.vector_bits, 256);
  EXPECT_NE(t.features.find("+sha"), std::string::npos) << t.features;
  EXPECT_EQ(t.features.find("not_a_feature"), std::string::npos) << t.features;
  EXPECT_EQ(codegen::parse_target(t.str()).str(), t.str());
}

// Checking targets used to point fd 2 at /dev/null while LLVM ran, losing whatever other threads
// wrote meanwhile. Every line another thread writes while boards' flag sets are checked arrives.
TEST(Target, CheckingTargetsNeverMutesOtherThreadsStderr) {
  char path[] = "/tmp/tf-target-stderr-XXXXXX";
  const int file = ::mkstemp(path);
  ASSERT_GE(file, 0);
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(file, STDERR_FILENO);

  std::atomic<bool> done{false};
  int written = 0;
  std::thread writer([&] {
    while (!done.load() || written < 200) {
      const std::string line = "line " + std::to_string(written++) + "\n";
      (void)!::write(STDERR_FILENO, line.data(), line.size());
    }
  });
  for (int i = 0; i < 40; ++i) {
    // A flag set of its own each time (no memo), with names LLVM does not know.
    codegen::target_from_cpu_flags("x86_64-pc-linux-gnu", {"sse4_1", "avx", "flag_" + std::to_string(i), "warpdrive"});
    error_of("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64 -mattr=+bogus" + std::to_string(i));
  }
  done = true;
  writer.join();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(file);

  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ::unlink(path);
  int lines = 0;
  for (std::string l; std::getline(text, l);) {
    if (l.rfind("line ", 0) == 0) ++lines;
    EXPECT_EQ(l.find("not a recognized"), std::string::npos) << "LLVM warned: " << l;
  }
  EXPECT_EQ(lines, written);
}

}  // namespace
}  // namespace tf

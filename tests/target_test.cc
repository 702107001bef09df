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
#include "runtime/host_cpu.h"

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

// A board describes its machine by triple and cpuinfo flags; a local command on the same machine
// must use the very same string, or their records and cost models would be two sets.
TEST(Target, NativeIsTheTargetABoardOnThisHostRegistersWith) {
  const runtime::HostCpu& cpu = runtime::host_cpu();
  const std::string board = codegen::target_from_cpu_flags(cpu.triple, cpu.flags).str();
  EXPECT_EQ(codegen::parse_target("native").str(), board);
  EXPECT_EQ(codegen::parse_target("llvm -mcpu=native").str(), board);
  EXPECT_EQ(codegen::parse_target("llvm").str(), board);
  EXPECT_EQ(codegen::parse_target("llvm -mtriple=" + cpu.triple + " -mcpu=native").str(), board);
  std::string why;
  EXPECT_TRUE(codegen::host_can_run(codegen::parse_target(board), &why)) << why;
}

// LLVM's name for this CPU brings a tuning model along, not instructions: the string older
// databases filed local records under runs here too, and is the same kind of machine.
TEST(Target, TheHostAsLlvmNamesItRunsHereAndIsTheSameKindOnlyWhenItsLevelMatches) {
  const std::string named = codegen::llvm_named_host_target();
  ASSERT_FALSE(named.empty());
  const codegen::Target t = codegen::parse_target(named);
  std::string why;
  EXPECT_TRUE(codegen::host_can_run(t, &why)) << why;
  const codegen::Target host = codegen::host_target();
  EXPECT_EQ(codegen::same_kind(host, host), true);
  EXPECT_EQ(codegen::same_kind(t, host), t.cpu == host.cpu);
  EXPECT_FALSE(codegen::same_kind(host, codegen::parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=generic")));
}

// A target that needs instructions the CPU lacks is refused, naming them.
TEST(Target, ATargetNeedingFeaturesTheHostLacksIsRefusedNamingThem) {
  const codegen::Target host = codegen::host_target();
  std::string missing;
  for (const char* f :
       {"avx512fp16", "amx-tile", "avx512vp2intersect", "avxvnniint8", "sha512", "sve", "sve2", "sme"}) {
    std::string attr = host.features.empty() ? std::string("+") + f : host.features + ",+" + f;
    try {
      const codegen::Target t =
          codegen::parse_target("llvm -mtriple=" + host.triple + " -mcpu=" + host.cpu + " -mattr=" + attr);
      if (!codegen::host_can_run(t)) {
        missing = f;
        std::string why;
        EXPECT_FALSE(codegen::host_can_run(t, &why));
        EXPECT_NE(why.find(f), std::string::npos) << why;
        EXPECT_NE(why.find("lacks"), std::string::npos) << why;
        break;
      }
    } catch (const CompileError&) {
      // Not a feature of this architecture.
    }
  }
  if (missing.empty()) GTEST_SKIP() << "this CPU has every feature tried";
  std::string why;
  EXPECT_FALSE(codegen::host_can_run(
      codegen::parse_target(host.triple.rfind("x86_64", 0) == 0 ? "llvm -mtriple=aarch64-linux-gnu -mcpu=generic"
                                                                : "llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64"),
      &why));
  EXPECT_NE(why.find("cannot run on this"), std::string::npos) << why;
}

TEST(Target, UnknownCpusAndFeaturesAreNamed) {
  EXPECT_NE(error_of("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=pentium9000").find("CPU 'pentium9000' is unknown"),
            std::string::npos);
  EXPECT_NE(error_of("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64 -mattr=+avx2,+warpdrive")
                .find("feature 'warpdrive' is unknown"),
            std::string::npos);
  EXPECT_NE(error_of("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64 -mattr=avx2").find("must start with + or -"),
            std::string::npos);
  EXPECT_NE(error_of("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+avx2").find("feature 'avx2' is unknown"),
            std::string::npos);
  EXPECT_EQ(error_of("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon"), "");
  EXPECT_EQ(codegen::parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72").vector_bits, 128);
}

TEST(Target, ABoardsFlagsGiveTheHighestX86LevelTheyCoverAndTheFeaturesBeyondIt) {
  const std::vector<std::string> v3 = {"cx16",  "lahf_lm", "popcnt", "sse4_1", "sse4_2",       "ssse3",
                                       "avx",   "avx2",    "bmi1",   "bmi2",   "f16c",         "fma",
                                       "movbe", "xsave",   "abm",    "sha_ni", "not_a_feature"};
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

// The int8 dense (qdense_packed): points of its config space against the exact integer reference
// on BERT-base's projections and awkward shapes, with scales and zero points that keep most
// outputs off the saturation bounds; the 4-way dot products as one VNNI instruction each where the
// target has them, and the same values from the widening sequence where it does not.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "runtime/thread_pool.h"
#include "tests/assembly_check.h"
#include "tests/config_check.h"

namespace tf {
namespace {

using testing_support::count_matches;
using testing_support::default_assembly;

size_t expect_qdense_correct(const std::string& shape_text, int samples, uint64_t seed,
                             const codegen::Target& target = codegen::host_target()) {
  return testing_support::expect_int8_configs_correct("qdense_packed", shape_text, samples, seed, target);
}

class QDenseSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

TEST_F(QDenseSpace, BertProjectionsMatchTheIntegerReference) {
  const std::string p = std::to_string(codegen::host_target().float32_lanes() * 2);
  EXPECT_GT(expect_qdense_correct("128,768,768," + p, 2, 41), 100u);   // query, key, value, output
  EXPECT_GT(expect_qdense_correct("128,3072,768," + p, 1, 42), 100u);  // the FFN's first
  EXPECT_GT(expect_qdense_correct("128,768,3072," + p, 1, 43), 100u);  // and second
}

TEST_F(QDenseSpace, OddShapes) {
  // Rows and columns that are no multiple of the tile, a partial last panel, one row (a classifier).
  expect_qdense_correct("7,50,12,16", 6, 51);
  expect_qdense_correct("1,1000,512,16", 4, 52);
  expect_qdense_correct("13,24,4,8", 6, 53);
  expect_qdense_correct("33,64,132,32", 4, 54);
}

// The centred variant (A's bytes less 128, B within [-127, 127]) on this host, and in the SSSE3
// and generic forms.
TEST_F(QDenseSpace, CenteredMatchesTheIntegerReference) {
  const std::string p = std::to_string(codegen::host_target().float32_lanes() * 2);
  EXPECT_GT(testing_support::expect_int8_configs_correct("qdense_packed_centered", "128,768,768," + p, 2, 61), 100u);
  for (const std::string attrs :
       {"-avx512vnni,-avxvnni", "-avx512vnni,-avxvnni,-avx2", "-avx512vnni,-avxvnni,-avx2,-ssse3"}) {
    SCOPED_TRACE(attrs);
    const codegen::Target target = codegen::parse_target("llvm -mcpu=native -mattr=" + attrs);
    testing_support::expect_int8_configs_correct("qdense_packed_centered", "7,50,12,16", 3, 62, target);
    testing_support::expect_int8_configs_correct("qdense_packed_centered", "33,64,132,32", 2, 63, target);
  }
}

TEST(QDenseShape, KComesInFours) {
  try {
    ops::check_workload({"qdense_packed", {8, 16, 6, 16}});
    FAIL() << "K = 6 accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4"), std::string::npos) << e.what();
  }
}

// Each group of four k is one vpdpbusd per accumulator; no widening multiplies are left.
// Compiled for Zen 4 whatever the host: the code is read, not run.
TEST(QDenseCodegen, DotProductsAreVnniInstructions) {
  const codegen::Target zen4 = codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4");
  const std::string a = default_assembly("qdense_packed", "128,768,768,32", zen4);
  // mr rows x 2 vectors of the 32-wide panel, times the unrolled groups.
  EXPECT_GE(count_matches(a, R"(vpdpbusd\s+[^\n]*zmm)"), 16) << "the register tile's dot products";
  EXPECT_EQ(count_matches(a, "vpmulld"), 0);
  EXPECT_EQ(count_matches(a, "vpmaddubsw"), 0);
}

// Bytes at the ends of their ranges: the products pmaddubsw adds in pairs would saturate int16
// (255 x 127 x 2) if the unsigned bytes went in whole.
TEST(QDenseCodegen, ExtremeBytesDoNotSaturateWithoutVnni) {
  const codegen::Target target = codegen::parse_target("llvm -mcpu=native -mattr=-avx512vnni,-avxvnni");
  const std::vector<int64_t> shape = {6, 32, 64, 16};
  compiler::Task task({"qdense_packed", shape}, target);
  compiler::KernelRunner runner(task.op(), shape, 5, task.argument_types());
  compiler::HostTensor &a = runner.input(0), &b = runner.input(1), &bias = runner.input(2);
  for (int64_t i = 0; i < a.size(); ++i) a.set(i, 255);
  for (int64_t i = 0; i < b.size(); ++i) b.set(i, i % 8 < 4 ? 127 : -128);
  for (int64_t i = 0; i < bias.size(); ++i) bias.set(i, 0);
  for (int64_t i = 0; i < runner.input(3).size(); ++i) runner.input(3).set(i, 1e-5 * static_cast<double>(1 + i % 5));
  runner.input(4).set(0, 255);
  runner.input(4).set(1, 100);
  auto kernel = task.build_jit(task.space().default_config());
  ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
  const auto check = runner.check();
  EXPECT_TRUE(check.pass) << check.mismatches << " mismatches, max abs error " << check.max_abs_error;
  EXPECT_EQ(count_matches(default_assembly("qdense_packed", "6,32,64,16", target), "vpdpbusd"), 0);
}

// Centred on AVX2: one pmaddubsw per dot product where the uncentred kernel takes two.
TEST(QDenseCodegen, CenteredInputsHalveTheMultiplyStepsWithoutVnni) {
  const codegen::Target avx2 = codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v3");
  const std::string plain = default_assembly("qdense_packed", "128,768,768,16", avx2);
  const std::string centered = default_assembly("qdense_packed_centered", "128,768,768,16", avx2);
  const int dots = count_matches(centered, "vpmaddubsw");
  EXPECT_GE(dots, 8);
  EXPECT_EQ(count_matches(centered, "vpmaddwd"), dots);
  EXPECT_EQ(count_matches(plain, "vpmaddubsw"), 2 * dots);
}

}  // namespace
}  // namespace tf

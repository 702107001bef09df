// The int8 convolution (qconv2d_nchwc): points of its config space against the exact integer
// reference on ResNet-18 layers and awkward shapes, with scales and zero points that keep most
// outputs off the saturation bounds; the 4-way dot products as one VNNI instruction each where
// the target has them (and the same values where it does not); the fusion pass's refusals.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <set>

#include "compiler/codegen/target.h"
#include "compiler/compiler.h"
#include "compiler/ir/printer.h"
#include "compiler/kernel_runner.h"
#include "compiler/ops/conv2d_shape.h"
#include "compiler/ops/nchwc_shape.h"
#include "runtime/thread_pool.h"
#include "tests/assembly_check.h"
#include "tests/config_check.h"

namespace tf {
namespace {

using testing_support::count_matches;
using testing_support::default_assembly;

class QConv2dSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

TEST_F(QConv2dSpace, ResnetLayersMatchTheIntegerReference) {
  // A 3x3 layer of each stage's width, a strided one and a 1x1 downsample.
  EXPECT_GT(
      testing_support::expect_int8_configs_correct("qconv2d_nchwc_relu", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1", 2, 11),
      100u);
  EXPECT_GT(testing_support::expect_int8_configs_correct("qconv2d_nchwc",
                                                         "c=128,h=56,w=56,k=128,r=3,s=3,stride=2,pad=1", 1, 12),
            100u);
  EXPECT_GT(
      testing_support::expect_int8_configs_correct("qconv2d_nchwc", "c=256,h=28,w=28,k=512,r=1,s=1,stride=2", 1, 13),
      100u);
  EXPECT_GT(
      testing_support::expect_int8_configs_correct("qconv2d_nchwc_relu", "c=512,h=7,w=7,k=512,r=3,s=3,pad=1", 1, 14),
      100u);
}

TEST_F(QConv2dSpace, OddShapes) {
  testing_support::expect_int8_configs_correct("qconv2d_nchwc", "c=4,h=9,w=11,k=8,r=3,s=3,pad=1,ib=4,ob=8", 4, 21);
  testing_support::expect_int8_configs_correct("qconv2d_nchwc_relu",
                                               "n=2,c=12,h=10,w=7,k=20,r=3,s=3,stride=2,pad=1,ib=4,ob=16", 4, 22);
  testing_support::expect_int8_configs_correct(
      "qconv2d_nchwc", "c=32,h=8,w=9,k=32,r=3,s=3,pad_top=0,pad_left=2,pad_bottom=1,pad_right=1", 4, 23);
  testing_support::expect_int8_configs_correct("qconv2d_nchwc", "c=16,h=9,w=9,k=40,r=3,s=3,stride=2,pad=1,ib=16,ob=32",
                                               4, 24);
  testing_support::expect_int8_configs_correct("qconv2d_nchwc_relu",
                                               "c=8,h=14,w=18,k=16,r=3,s=3,dilation=2,pad=2,ib=8,ob=16", 4, 25);
}

// The centred variants (input bytes less 128, weights within [-127, 127]) against their reference on
// this host, with the x86 forms it can run: pabsb/psignb/pmaddubsw where it has AVX2 or only SSSE3,
// and the generic widening without either.
TEST_F(QConv2dSpace, CenteredInputsMatchTheIntegerReference) {
  EXPECT_GT(testing_support::expect_int8_configs_correct("qconv2d_nchwc_centered_relu",
                                                         "c=64,h=56,w=56,k=64,r=3,s=3,pad=1", 2, 41),
            100u);
  EXPECT_GT(testing_support::expect_int8_configs_correct("qconv2d_nchwc_centered",
                                                         "c=256,h=28,w=28,k=512,r=1,s=1,stride=2", 1, 42),
            100u);
  for (const std::string attrs :
       {"-avx512vnni,-avxvnni", "-avx512vnni,-avxvnni,-avx2", "-avx512vnni,-avxvnni,-avx2,-ssse3"}) {
    SCOPED_TRACE(attrs);
    const codegen::Target target = codegen::parse_target("llvm -mcpu=native -mattr=" + attrs);
    testing_support::expect_int8_configs_correct(
        "qconv2d_nchwc_centered", "n=2,c=12,h=10,w=7,k=20,r=3,s=3,stride=2,pad=1,ib=4,ob=16", 3, 43, target);
  }
}

TEST(QConv2dShape, ChannelsComeInFours) {
  try {
    ops::check_workload({"qconv2d_nchwc", ops::parse_shape("qconv2d_nchwc", "c=6,h=5,w=5,k=8,r=3,s=3,ib=8")});
    FAIL() << "c=6 accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("multiples of 4"), std::string::npos) << e.what();
  }
}

// Each group of four input channels is one vpdpbusd per accumulator, its input bytes a broadcast
// memory operand; no widening multiplies are left in the micro-kernel.
// Compiled for Zen 4 whatever the host: the code is read, not run.
TEST(QConv2dCodegen, DotProductsAreVnniInstructions) {
  const codegen::Target zen4 = codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4");
  const std::string a = default_assembly("qconv2d_nchwc_relu", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1", zen4);
  EXPECT_GE(count_matches(a, R"(vpdpbusd\s+[^\n]*zmm)"), 28) << "the register tile's dot products";
  EXPECT_EQ(count_matches(a, "vpmulld"), 0);
  EXPECT_EQ(count_matches(a, "vgather"), 0);
}

// Groups of four channels unrolled together: each accumulator's steps fuse four at a time, so
// every config of the knob is dot products, never widening multiplies.
TEST(QConv2dCodegen, UnrolledGroupsAreDotProductsToo) {
  const codegen::Target zen4 = codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4");
  const std::string shape = "c=64,h=56,w=56,k=64,r=3,s=3,pad=1";
  compiler::Task task({"qconv2d_nchwc", ops::parse_shape("qconv2d_nchwc", shape)}, zen4);
  codegen::CodegenOptions opts;
  opts.keep_assembly = true;
  for (int unroll : {2, 4}) {
    SCOPED_TRACE(unroll);
    const std::string config = R"({"unroll_groups":)" + std::to_string(unroll) + "}";
    const std::string a = task.build_shared_library(task.parse_config(config), nullptr, opts).assembly;
    EXPECT_GE(count_matches(a, R"(vpdpbusd\s+[^\n]*zmm)"), 28 * unroll);
    EXPECT_EQ(count_matches(a, "vpmulld"), 0);
  }
}

// Without VNNI the same dot products are widening multiplies and sums: no vpdpbusd, same values.
TEST(QConv2dCodegen, WithoutVnniTheValuesAreTheSame) {
  const codegen::Target plain = codegen::parse_target("llvm -mcpu=native -mattr=-avx512vnni,-avxvnni");
  const std::string a = default_assembly("qconv2d_nchwc", "c=16,h=8,w=8,k=16,r=3,s=3,pad=1", plain);
  EXPECT_EQ(count_matches(a, "vpdpbusd"), 0);
  EXPECT_GT(
      testing_support::expect_int8_configs_correct("qconv2d_nchwc", "c=16,h=8,w=8,k=16,r=3,s=3,pad=1", 2, 31, plain),
      20u);
}

// The default config of `op` (qconv2d_nchwc*, c=16 6x6 3x3) against its reference with every input
// byte `byte`, the weights `high` in the first four of every eight and `low` in the rest, no bias
// and scales that keep the sums off the output's bounds.
void expect_extreme_bytes_exact(const std::string& op, const codegen::Target& target, int byte, int high, int low,
                                int x_zero) {
  const std::vector<int64_t> shape = ops::parse_shape(op, "c=16,h=6,w=6,k=16,r=3,s=3,pad=1");
  compiler::Task task({op, shape}, target);
  compiler::KernelRunner runner(task.op(), shape, 5, task.argument_types());
  compiler::HostTensor &data = runner.input(0), &weight = runner.input(1), &bias = runner.input(2);
  for (int64_t i = 0; i < data.size(); ++i) data.set(i, byte);
  for (int64_t i = 0; i < weight.size(); ++i) weight.set(i, i % 8 < 4 ? high : low);
  for (int64_t i = 0; i < bias.size(); ++i) bias.set(i, 0);
  for (int64_t i = 0; i < runner.input(3).size(); ++i) runner.input(3).set(i, 1e-5 * static_cast<double>(1 + i % 5));
  runner.input(4).set(0, x_zero);
  runner.input(4).set(1, 100);
  auto kernel = task.build_jit(task.space().default_config());
  ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
  const auto check = runner.check();
  EXPECT_TRUE(check.pass) << check.mismatches << " mismatches, max abs error " << check.max_abs_error;
}

// Bytes at the ends of their ranges: the products pmaddubsw adds in pairs would saturate int16
// (255 x 127 x 2) if the unsigned bytes went in whole; the generic widening path (no SSSE3) too.
TEST(QConv2dCodegen, ExtremeBytesDoNotSaturate) {
  for (const std::string attrs : {"-avx512vnni,-avxvnni", "-avx512vnni,-avxvnni,-avx2,-ssse3"}) {
    SCOPED_TRACE(attrs);
    expect_extreme_bytes_exact("qconv2d_nchwc", codegen::parse_target("llvm -mcpu=native -mattr=" + attrs), 255, 127,
                               -128, 255);
  }
}

// Centred on AVX2: one pmaddubsw and one pmaddwd per dot product (psignb putting the input bytes'
// signs on the weights), where the uncentred kernel takes two of each. Read, not run.
TEST(QConv2dCodegen, CenteredInputsHalveTheMultiplyStepsWithoutVnni) {
  const codegen::Target avx2 = codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v3");
  EXPECT_TRUE(codegen::prefers_centered_int8(avx2));
  const std::string shape = "c=64,h=56,w=56,k=64,r=3,s=3,pad=1";
  const std::string plain = default_assembly("qconv2d_nchwc_relu", shape, avx2);
  const std::string centered = default_assembly("qconv2d_nchwc_centered_relu", shape, avx2);
  const int dots = count_matches(centered, "vpmaddubsw");
  EXPECT_GE(dots, 8) << "the register tile's dot products";
  EXPECT_EQ(count_matches(centered, "vpmaddwd"), dots);
  EXPECT_GE(count_matches(centered, "vpsignb"), dots);
  EXPECT_EQ(count_matches(plain, "vpmaddubsw"), 2 * dots);
  EXPECT_EQ(count_matches(plain, "vpsignb"), 0);
}

// With VNNI the centred kernel is still one vpdpbusd per dot product (the 128s' product with each
// weight vector once more); and AVX-512 without VNNI centres without vpsignb (it has none).
TEST(QConv2dCodegen, CenteredInputsOnOtherX86Targets) {
  const codegen::Target zen4 = codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4");
  EXPECT_FALSE(codegen::prefers_centered_int8(zen4));
  const std::string shape = "c=64,h=56,w=56,k=64,r=3,s=3,pad=1";
  const std::string vnni = default_assembly("qconv2d_nchwc_centered_relu", shape, zen4);
  EXPECT_GE(count_matches(vnni, R"(vpdpbusd\s+[^\n]*zmm)"), 28);
  EXPECT_EQ(count_matches(vnni, "vpmaddubsw"), 0);
  const codegen::Target skylake =
      codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v4 -mattr=-avx512vnni,-avxvnni");
  EXPECT_TRUE(codegen::prefers_centered_int8(skylake));
  const std::string bw = default_assembly("qconv2d_nchwc_centered_relu", shape, skylake);
  EXPECT_GE(count_matches(bw, R"(vpmaddubsw\s+[^\n]*zmm)"), 14);
  EXPECT_EQ(count_matches(bw, "vpdpbusd"), 0);
  const codegen::Target arm = codegen::parse_target("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n2");
  EXPECT_FALSE(codegen::prefers_centered_int8(arm));
}

// The centred product's extremes: input bytes 0 and 255 (-128 and 127 once centred, -128's
// magnitude 128 as an unsigned byte) against weights +-127, on every x86 form this host runs.
TEST(QConv2dCodegen, CenteredExtremeBytesAreExact) {
  for (const std::string attrs :
       {"-avx512vnni,-avxvnni", "-avx512vnni,-avxvnni,-avx2", "-avx512vnni,-avxvnni,-avx2,-ssse3"}) {
    for (int byte : {0, 255}) {
      SCOPED_TRACE(attrs + " bytes " + std::to_string(byte));
      expect_extreme_bytes_exact("qconv2d_nchwc_centered", codegen::parse_target("llvm -mcpu=native -mattr=" + attrs),
                                 byte, 127, -127, 255 - byte);
    }
  }
}

}  // namespace
}  // namespace tf

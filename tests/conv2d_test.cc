// Every point of the plain-layout conv2d config spaces must compile and compute the right answer:
// random points of the space on the benchmark layers and on awkward shapes (prime channel counts,
// ragged tiles, stride 2 on odd sizes, dilation, asymmetric padding, groups, depthwise with a
// channel multiplier, batch 3), for every fused epilogue, checked against the double-precision
// reference.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "compiler/ops/conv2d_shape.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"
#include "tests/conv2d_layers.h"

namespace tf {
namespace {

using testing_support::expect_configs_correct;

class Conv2dSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

// The layers of ../shared/workloads/conv2d.json (ResNet-18 and MobileNet depthwise, batch 1). They
// are big for a 2-core CI machine: the default config and two random ones each.
std::vector<std::string> bench_layers() {
  std::vector<std::string> all = testing_support::kResnet18Layers;
  all.insert(all.end(), testing_support::kMobilenetDepthwiseLayers.begin(),
             testing_support::kMobilenetDepthwiseLayers.end());
  return all;
}

TEST_F(Conv2dSpace, BenchmarkLayers) {
  uint64_t seed = 100;
  for (const auto& layer : bench_layers()) expect_configs_correct("conv2d", layer, 2, ++seed, false);
}

TEST_F(Conv2dSpace, PrimeChannels) { expect_configs_correct("conv2d", "c=7,h=11,w=13,k=11,r=3,s=3,pad=1", 40, 1); }
TEST_F(Conv2dSpace, RaggedTiles) { expect_configs_correct("conv2d", "c=5,h=19,w=23,k=13,r=3,s=3,pad=1", 40, 2); }
TEST_F(Conv2dSpace, StrideTwoOnOddSizes) {
  expect_configs_correct("conv2d", "c=6,h=15,w=17,k=10,r=3,s=3,stride=2,pad=1", 40, 3);
}
TEST_F(Conv2dSpace, DilationTwo) {
  expect_configs_correct("conv2d", "c=4,h=14,w=18,k=8,r=3,s=3,dilation=2,pad=2", 40, 4);
}
TEST_F(Conv2dSpace, AsymmetricPadding) {
  expect_configs_correct("conv2d", "c=3,h=10,w=12,k=5,r=3,s=4,pad_top=0,pad_left=2,pad_bottom=1,pad_right=1", 40, 5);
  expect_configs_correct("conv2d", "c=3,h=9,w=9,k=4,r=2,s=2,stride=2,pad_top=1,pad_left=0,pad_bottom=0,pad_right=1", 20,
                         6);
}
TEST_F(Conv2dSpace, GroupsTwoAndFour) {
  expect_configs_correct("conv2d", "c=8,h=9,w=10,k=6,r=3,s=3,pad=1,groups=2", 30, 7);
  expect_configs_correct("conv2d", "c=8,h=9,w=10,k=12,r=3,s=3,stride=2,pad=1,groups=4", 30, 8);
}
TEST_F(Conv2dSpace, DepthwiseWithChannelMultiplierTwo) {
  expect_configs_correct("conv2d", "c=6,h=13,w=15,k=12,r=3,s=3,pad=1,groups=6", 40, 9);
}
TEST_F(Conv2dSpace, BatchThree) { expect_configs_correct("conv2d", "n=3,c=5,h=8,w=9,k=7,r=3,s=3,pad=1", 40, 10); }
TEST_F(Conv2dSpace, OneByOneKernelAndOneByOneImage) {
  expect_configs_correct("conv2d", "c=17,h=6,w=7,k=9,r=1,s=1", 20, 11);
  expect_configs_correct("conv2d", "c=3,h=1,w=1,k=2,r=1,s=1", 5, 12);
}

TEST_F(Conv2dSpace, EveryEpilogue) {
  uint64_t seed = 20;
  for (const std::string op :
       {"conv2d_bias", "conv2d_bias_relu", "conv2d_bias_add", "conv2d_bias_add_relu", "conv2d_bias_clip"}) {
    expect_configs_correct(op, "n=2,c=6,h=9,w=11,k=10,r=3,s=3,stride=2,pad=1", 20, ++seed);
    expect_configs_correct(op, "c=8,h=7,w=13,k=16,r=3,s=3,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1,groups=8", 15,
                           ++seed);
  }
  expect_configs_correct("conv2d_bias_add_relu", "c=64,h=14,w=14,k=64,r=3,s=3,pad=1", 3, ++seed, false);
  expect_configs_correct("conv2d_bias_clip", "c=32,h=28,w=28,k=32,r=3,s=3,pad=1,groups=32", 3, ++seed, false);
}

// clip(0, 6) must clip at 6, which inputs in [-1, 1) reach only when many products add up.
TEST_F(Conv2dSpace, ClipReachesSix) {
  const std::vector<int64_t> shape = ops::parse_shape("conv2d_bias_clip", "c=64,h=6,w=6,k=4,r=3,s=3,pad=1");
  compiler::Task task({"conv2d_bias_clip", shape}, codegen::host_target());
  compiler::KernelRunner runner(task.op(), shape, 3);
  auto kernel = task.build_jit(task.space().default_config());
  ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
  EXPECT_TRUE(runner.check().pass);
}

TEST(Conv2dOp, ShapesReadAndPrintByName) {
  const auto& op = ops::find_operator("conv2d_bias_relu");
  const auto shape = ops::parse_shape("conv2d_bias_relu", "n=1,c=64,h=56,w=56,k=64,r=3,s=3,stride=1,pad=1");
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(op.shape_text(shape), "n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1");
  EXPECT_EQ(ops::parse_shape("conv2d", "1,64,56,56,64,3,3,1,1,1,1,1,1,1"), shape);
  EXPECT_EQ(op.output_shape(shape), (std::vector<int64_t>{1, 64, 56, 56}));
  EXPECT_EQ(op.flops(shape), 2LL * 64 * 56 * 56 * 64 * 9);
  EXPECT_EQ(ops::find_operator("conv2d_bias_add_relu").input_shapes(shape).size(), 4u);
}

TEST(Conv2dOp, WorkloadsThatMakeNoSenseAreRefusedNamingTheField) {
  auto refusal = [](const std::string& text) {
    try {
      ops::check_workload({"conv2d", ops::parse_shape("conv2d", text)});
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal("c=6,h=5,w=5,k=4,r=3,s=3,groups=4").find("groups"), std::string::npos);
  EXPECT_NE(refusal("c=6,h=5,w=5,k=4,r=7,s=3").find("r = 7"), std::string::npos);
  EXPECT_NE(refusal("c=6,h=5,w=5,k=4,r=3,s=3,stride=0").find("stride"), std::string::npos);
  EXPECT_NE(refusal("1,6,5,5,4,3,3,1,1,1,0,0,0").find("14 extents"), std::string::npos);
  EXPECT_EQ(refusal("c=6,h=5,w=5,k=4,r=3,s=3"), "");
}

TEST(Conv2dCodegen, DefaultConfigIsVectorizedWithFma) {
  compiler::Task task({"conv2d", ops::parse_shape("conv2d", "c=16,h=16,w=32,k=16,r=3,s=3,pad=1")},
                      codegen::host_target());
  codegen::CodegenOptions opts;
  opts.keep_assembly = true;
  auto kernel = task.build_jit(task.space().default_config(), nullptr, opts);
  const std::string& asm_text = kernel->assembly();
  EXPECT_NE(asm_text.find("vfmadd"), std::string::npos) << "no FMA in the conv tile";
}

}  // namespace
}  // namespace tf

// The blocked-layout (NCHWc) convolutions and layout operators: points of every config space
// checked against the double-precision reference on the benchmark layers of
// ../shared/workloads/conv2d.json and on awkward shapes (prime channel counts, channels not a
// multiple of the block, ragged tiles, stride 2 on odd sizes, dilation 2, asymmetric padding,
// batch 3, channel multiplier 2); shapes by name and their refusals; the micro-kernel's machine code.
#include <gtest/gtest.h>

#include <regex>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "compiler/ops/nchwc_shape.h"
#include "runtime/thread_pool.h"
#include "tests/assembly_check.h"
#include "tests/config_check.h"
#include "tests/conv2d_layers.h"

namespace tf {
namespace {

using testing_support::count_matches;
using testing_support::default_assembly;
using testing_support::expect_configs_correct;

class NchwcSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

using testing_support::kMobilenetDepthwiseLayers;
using testing_support::kResnet18Layers;

// ResNet-18's layers at batch 1: the default config and one random one each (their double
// references dominate the run time on a 2-core machine).
TEST_F(NchwcSpace, ResnetLayers) {
  uint64_t seed = 200;
  for (const auto& layer : kResnet18Layers)
    expect_configs_correct("conv2d_nchwc", layer + ",ib=16,ob=16", 1, ++seed, false);
}

// Accumulating over the whole plane: ragged row and column tiles, ragged channel blocks, strides,
// several batches and output-channel tiles, with and without the padded copy.
TEST_F(NchwcSpace, PlaneAccumulation) {
  for (const char* shape :
       {"c=19,h=9,w=10,k=13,r=3,s=3,pad=1,ib=8,ob=8", "n=2,c=16,h=7,w=7,k=40,r=3,s=3,pad=1,ib=8,ob=8",
        "c=32,h=14,w=14,k=48,r=3,s=3,stride=2,pad=1,ib=16,ob=16", "c=17,h=6,w=7,k=9,r=1,s=1,ib=8,ob=8"}) {
    const std::vector<int64_t> s = ops::parse_shape("conv2d_nchwc_bias_relu", shape);
    compiler::Task task({"conv2d_nchwc_bias_relu", s}, codegen::host_target());
    compiler::KernelRunner runner(task.op(), s, 3);
    for (const char* config : {R"({"accumulate":"plane"})", R"({"accumulate":"plane","oc_blocks":2,"oh_tile":2})",
                               R"({"accumulate":"plane","order":"kh_ic","pad":"inline","parallel":"none"})"}) {
      if (std::string(config).find("pad") != std::string::npos && std::string(shape).find("pad") == std::string::npos)
        continue;  // a 1x1 without padding has no pad knob
      SCOPED_TRACE(std::string(shape) + " " + config);
      auto kernel = task.build_jit(task.parse_config(config));
      ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
      const auto check = runner.check();
      EXPECT_TRUE(check.pass) << check.mismatches << " mismatches, max abs error " << check.max_abs_error;
    }
  }
}

// The default accumulates over planes that fit in L1; a config written before the knob existed
// (a record without it) still means the per-tile kernel it measured.
TEST(NchwcOp, PlaneAccumulationIsTheDefaultOnSmallPlanesOnly) {
  auto space_of = [](const char* shape) {
    return compiler::Task({"conv2d_nchwc", ops::parse_shape("conv2d_nchwc", shape)}, codegen::host_target()).space();
  };
  const auto small = space_of("c=512,h=7,w=7,k=512,r=3,s=3,pad=1,ib=16,ob=16");
  EXPECT_EQ(small.default_config().get_string("accumulate"), "plane");
  EXPECT_EQ(small.from_json(Json::parse(R"({"ow_tile":4})")).get_string("accumulate"), "tile");
  EXPECT_EQ(space_of("c=64,h=56,w=56,k=64,r=3,s=3,pad=1,ib=16,ob=16").default_config().get_string("accumulate"),
            "tile");
}

TEST_F(NchwcSpace, MobilenetDepthwiseLayers) {
  uint64_t seed = 300;
  for (const auto& layer : kMobilenetDepthwiseLayers)
    expect_configs_correct("depthwise_nchwc", layer + ",b=16", 3, ++seed, false);
}

TEST_F(NchwcSpace, ConvOddShapes) {
  // Prime channels below one block, then several blocks with ragged last ones on both sides.
  expect_configs_correct("conv2d_nchwc", "c=7,h=11,w=13,k=11,r=3,s=3,pad=1", 6, 1);
  expect_configs_correct("conv2d_nchwc", "c=19,h=9,w=10,k=13,r=3,s=3,pad=1,ib=8,ob=8", 6, 2);
  expect_configs_correct("conv2d_nchwc", "c=37,h=7,w=23,k=41,r=3,s=3,pad=1", 6, 3);
  expect_configs_correct("conv2d_nchwc", "c=6,h=15,w=17,k=10,r=3,s=3,stride=2,pad=1,ib=4,ob=4", 6, 4);
  expect_configs_correct("conv2d_nchwc", "c=4,h=14,w=18,k=8,r=3,s=3,dilation=2,pad=2,ib=4,ob=8", 6, 5);
  expect_configs_correct("conv2d_nchwc", "c=3,h=10,w=12,k=5,r=3,s=4,pad_top=0,pad_left=2,pad_bottom=1,pad_right=1", 6,
                         6);
  expect_configs_correct("conv2d_nchwc", "n=3,c=5,h=8,w=9,k=7,r=3,s=3,pad=1,ib=2,ob=4", 6, 7);
  expect_configs_correct("conv2d_nchwc", "c=17,h=6,w=7,k=9,r=1,s=1,ib=8,ob=8", 6, 8);
  expect_configs_correct("conv2d_nchwc", "c=3,h=1,w=1,k=2,r=1,s=1", 5, 9);
  // ob wider than the target's vector: unrolled vectors per block.
  expect_configs_correct("conv2d_nchwc", "c=16,h=9,w=9,k=40,r=3,s=3,stride=2,pad=1,ib=16,ob=32", 6, 10);
}

TEST_F(NchwcSpace, DepthwiseOddShapes) {
  expect_configs_correct("depthwise_nchwc", "c=7,h=13,w=15,k=7,r=3,s=3,pad=1", 6, 11);
  expect_configs_correct("depthwise_nchwc", "c=6,h=13,w=15,k=12,r=3,s=3,pad=1,b=4", 6, 12);  // multiplier 2
  expect_configs_correct("depthwise_nchwc", "c=19,h=11,w=9,k=38,r=3,s=3,stride=2,pad=1,b=8", 6, 13);
  expect_configs_correct("depthwise_nchwc", "c=20,h=17,w=15,k=20,r=3,s=3,stride=2,pad=1", 6, 14);
  expect_configs_correct("depthwise_nchwc", "c=8,h=14,w=18,k=8,r=3,s=3,dilation=2,pad=2,b=8", 6, 15);
  expect_configs_correct("depthwise_nchwc",
                         "c=5,h=10,w=12,k=5,r=3,s=4,pad_top=0,pad_left=2,pad_bottom=1,pad_right=1,b=4", 6, 16);
  expect_configs_correct("depthwise_nchwc", "n=3,c=16,h=8,w=9,k=16,r=5,s=5,pad=2", 6, 17);
}

TEST_F(NchwcSpace, EveryEpilogue) {
  uint64_t seed = 30;
  for (const std::string op : {"conv2d_nchwc_bias", "conv2d_nchwc_bias_relu", "conv2d_nchwc_bias_add",
                               "conv2d_nchwc_bias_add_relu", "conv2d_nchwc_bias_clip"}) {
    expect_configs_correct(op, "n=2,c=6,h=9,w=11,k=10,r=3,s=3,stride=2,pad=1,ib=4,ob=4", 3, ++seed);
    expect_configs_correct(op, "c=24,h=7,w=13,k=20,r=3,s=3,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1", 3, ++seed);
  }
  for (const std::string op : {"depthwise_nchwc_bias", "depthwise_nchwc_bias_relu", "depthwise_nchwc_bias_clip"}) {
    expect_configs_correct(op, "c=20,h=9,w=11,k=40,r=3,s=3,stride=2,pad=1", 3, ++seed);
    expect_configs_correct(op, "c=24,h=7,w=13,k=24,r=3,s=3,pad=1,b=8", 3, ++seed);
  }
  expect_configs_correct("conv2d_nchwc_bias_add_relu", "c=64,h=14,w=14,k=64,r=3,s=3,pad=1", 2, ++seed, false);
  expect_configs_correct("depthwise_nchwc_bias_clip", "c=32,h=28,w=28,k=32,r=3,s=3,pad=1", 2, ++seed, false);
}

TEST_F(NchwcSpace, LayoutOperators) {
  expect_configs_correct("layout_to_nchwc", "n=2,c=19,h=5,w=7,b=8", 3, 40);
  expect_configs_correct("layout_to_nchwc", "c=64,h=9,w=20", 3, 41);
  expect_configs_correct("layout_from_nchwc", "n=2,c=19,h=5,w=7,b=8", 3, 42);
  expect_configs_correct("layout_from_nchwc", "c=64,h=9,w=20", 3, 43);
  expect_configs_correct("layout_reblock_nchwc", "n=2,c=19,h=5,w=7,ib=8,ob=16", 3, 46);  // ragged both ways
  expect_configs_correct("layout_reblock_nchwc", "c=64,h=9,w=20,ib=32,ob=16", 3, 47);
  expect_configs_correct("layout_reblock_nchwc", "c=24,h=3,w=5,ib=16,ob=8", 3, 48);
  expect_configs_correct("pack_conv_weight", "k=13,c=7,r=3,s=3,ib=4,ob=8", 2, 44);
  expect_configs_correct("pack_conv_weight", "k=64,c=32,r=1,s=1", 2, 45);
}

// The pools of a blocked activation: padded and unpadded windows, ragged last blocks, a block wider
// than the vector, average pooling with and without the padding counted, max pooling of uint8.
TEST_F(NchwcSpace, Pools) {
  uint64_t seed = 60;
  for (const std::string op : {"max_pool2d_nchwc", "avg_pool2d_nchwc", "max_pool2d_nchwc_u8"}) {
    expect_configs_correct(op, "c=64,h=112,w=112,r=3,s=3,stride=2,pad=1", 2, ++seed);  // ResNet's stem
    expect_configs_correct(op, "n=2,c=19,h=9,w=11,r=3,s=3,stride=2,pad=1,b=8", 6, ++seed);
    expect_configs_correct(op, "c=5,h=7,w=13,r=2,s=3,stride=1,pad_top=0,pad_left=1,pad_bottom=1,pad_right=2,b=4", 6,
                           ++seed);
    expect_configs_correct(op, "c=40,h=8,w=8,r=2,s=2,stride=2,b=32", 4, ++seed);
  }
  expect_configs_correct("avg_pool2d_nchwc", "c=20,h=7,w=7,r=3,s=3,stride=1,pad=1,count_include_pad=1", 4, ++seed);
  for (const std::string op : {"global_avg_pool2d_nchwc", "global_max_pool2d_nchwc"}) {
    expect_configs_correct(op, "c=1280,h=7,w=7", 2, ++seed);         // MobileNetV2's head
    expect_configs_correct(op, "n=2,c=24,h=5,w=3,b=8", 2, ++seed);   // blocks narrower than a vector
    expect_configs_correct(op, "n=3,c=64,h=1,w=1,b=32", 2, ++seed);  // one pixel, two vectors a block
  }
}

TEST(NchwcOp, AGlobalPoolsBlockDividesItsChannels) {
  const auto& op = ops::find_operator("global_avg_pool2d_nchwc");
  EXPECT_EQ(op.output_shape(ops::parse_shape("global_avg_pool2d_nchwc", "c=64,h=7,w=7")),
            (std::vector<int64_t>{1, 64, 1, 1}));
  EXPECT_THROW(op.check_shape(ops::parse_shape("global_avg_pool2d_nchwc", "c=20,h=7,w=7,b=16")), CompileError);
  EXPECT_THROW(op.check_shape({1, 128, 7, 7, 128}), CompileError);  // wider than 64
}

TEST(NchwcOp, PoolShapesAddTheBlock) {
  const auto shape = ops::parse_shape("max_pool2d_nchwc", "c=64,h=112,w=112,r=3,s=3,stride=2,pad=1");
  EXPECT_EQ(shape.back(), 16);  // the block defaults to 16
  const auto& op = ops::find_operator("max_pool2d_nchwc");
  EXPECT_EQ(op.output_shape(shape), (std::vector<int64_t>{1, 4, 56, 56, 16}));
  EXPECT_EQ(
      op.shape_text(shape),
      ops::find_operator("max_pool2d").shape_text(std::vector<int64_t>(shape.begin(), shape.end() - 1)) + ",b=16");
  EXPECT_THROW(op.check_shape({1, 64, 8, 8, 3, 3, 1, 1, 1, 1, 1, 0}), CompileError);  // b = 0
  EXPECT_THROW(op.check_shape(ops::parse_shape("max_pool2d_nchwc", "c=8,h=4,w=4,r=5,s=3,b=8")),
               CompileError);  // window taller than the input
}

// clip(0, 6) must clip at 6, which inputs in [-1, 1) reach only when many products add up.
TEST_F(NchwcSpace, ClipReachesSix) {
  expect_configs_correct("conv2d_nchwc_bias_clip", "c=64,h=6,w=6,k=16,r=3,s=3,pad=1", 0, 3, false);
}

TEST(NchwcOp, ShapesReadAndPrintByName) {
  const auto shape = ops::parse_shape("conv2d_nchwc", "n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1,ib=16,ob=16");
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 16, 16}));
  EXPECT_EQ(ops::parse_shape("conv2d_nchwc_bias_relu", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1"),
            shape);  // blocks default 16
  const auto& op = ops::find_operator("conv2d_nchwc_bias_add_relu");
  EXPECT_EQ(op.shape_text(shape), "n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1,ib=16,ob=16");
  EXPECT_EQ(op.output_shape(ops::parse_shape("conv2d_nchwc", "c=20,h=5,w=5,k=20,r=3,s=3,ib=8,ob=16")),
            (std::vector<int64_t>{1, 2, 3, 3, 16}));
  EXPECT_EQ(op.input_shapes(shape),
            (std::vector<std::vector<int64_t>>{{1, 4, 56, 56, 16}, {4, 4, 3, 3, 16, 16}, {4, 16}, {1, 4, 56, 56, 16}}));
  EXPECT_EQ(op.flops(shape), 2LL * 64 * 56 * 56 * 64 * 9);

  const auto dw = ops::parse_shape("depthwise_nchwc", "c=32,h=112,w=112,k=32,r=3,s=3,pad=1,groups=32,b=16");
  EXPECT_EQ(ops::parse_shape("depthwise_nchwc", "c=32,h=112,w=112,k=32,r=3,s=3,pad=1"), dw);  // groups = c, b = 16
  EXPECT_EQ(ops::find_operator("depthwise_nchwc_bias").input_shapes(dw),
            (std::vector<std::vector<int64_t>>{{1, 2, 112, 112, 16}, {2, 3, 3, 16}, {2, 16}}));
  EXPECT_EQ(ops::parse_shape("layout_to_nchwc", "c=3,h=4,w=5"), (std::vector<int64_t>{1, 3, 4, 5, 16}));
  EXPECT_EQ(ops::find_operator("pack_conv_weight")
                .output_shape(ops::parse_shape("pack_conv_weight", "k=20,c=3,r=3,s=3,ob=8")),
            (std::vector<int64_t>{3, 1, 3, 3, 16, 8}));
}

TEST(NchwcOp, WorkloadsThatMakeNoSenseAreRefusedNamingTheField) {
  auto refusal = [](const std::string& op, const std::string& text) {
    try {
      ops::check_workload({op, ops::parse_shape(op, text)});
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal("conv2d_nchwc", "c=8,h=5,w=5,k=8,r=3,s=3,groups=2").find("groups = 2"), std::string::npos);
  EXPECT_NE(refusal("conv2d_nchwc", "c=8,h=5,w=5,k=8,r=3,s=3,ib=0").find("ib = 0"), std::string::npos);
  EXPECT_NE(refusal("conv2d_nchwc", "c=8,h=5,w=5,k=8,r=3,s=3,ob=65").find("ob = 65"), std::string::npos);
  EXPECT_NE(refusal("conv2d_nchwc", "c=8,h=5,w=5,k=8,r=3,s=3,b=4").find("'b'"), std::string::npos);
  EXPECT_NE(refusal("depthwise_nchwc", "c=8,h=5,w=5,k=24,r=3,s=3").find("k = 24"), std::string::npos);
  EXPECT_NE(refusal("depthwise_nchwc", "c=8,h=5,w=5,k=8,r=3,s=3,groups=4").find("groups = 4"), std::string::npos);
  EXPECT_NE(refusal("layout_to_nchwc", "c=8,h=5,w=5,b=100").find("b = 100"), std::string::npos);
  EXPECT_NE(refusal("pack_conv_weight", "k=8,c=8,r=3").find("s="), std::string::npos);
  EXPECT_EQ(refusal("conv2d_nchwc", "c=8,h=5,w=5,k=8,r=3,s=3,ib=4,ob=8"), "");
  EXPECT_EQ(refusal("depthwise_nchwc", "c=8,h=5,w=5,k=16,r=3,s=3,b=8"), "");
}

// The reference's layout helpers: blocking pads with zeros and unblocking restores the plain data.
TEST(NchwcLayout, BlockingRoundTripsAndZeroPads) {
  std::vector<float> plain(2 * 5 * 3);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<float>(i + 1);
  const auto blocked = ops::activation_to_blocked(plain.data(), 2, 5, 3, 4);
  ASSERT_EQ(blocked.size(), 2u * 2 * 3 * 4);
  EXPECT_EQ(blocked[(0 * 3 + 1) * 4 + 2], plain[2 * 3 + 1]);                      // n 0, channel 2, pixel 1
  EXPECT_EQ(blocked[((1 * 2 + 1) * 3 + 2) * 4 + 0], plain[(1 * 5 + 4) * 3 + 2]);  // n 1, channel 4, pixel 2
  EXPECT_EQ(blocked[((1 * 2 + 1) * 3 + 2) * 4 + 3], 0.0f);                        // channel 7: padding
  EXPECT_EQ(ops::activation_from_blocked(blocked.data(), 2, 5, 3, 4), plain);
  const auto packed = ops::weight_to_packed(plain.data(), 5, 2, 3, 4, 4);
  EXPECT_EQ(ops::weight_from_packed(packed.data(), 5, 2, 3, 4, 4), plain);
}

// The micro-kernel: FMAs over whole vectors of output channels with a broadcast input operand,
// and no gathers anywhere in the dense conv.
TEST(NchwcCodegen, ConvMicroKernelIsBroadcastFma) {
  if (codegen::host_target().float32_lanes() < 16) GTEST_SKIP() << "checks AVX-512 code";
  const std::string a = default_assembly("conv2d_nchwc", "c=64,h=56,w=56,k=64,r=3,s=3,pad=1", codegen::host_target());
  // Default tile: 2 channel blocks x 14 columns = 28 zmm accumulators, one broadcast per column.
  EXPECT_GE(count_matches(a, R"(vfmadd...ps[^\n]*zmm)"), 28) << "the register tile's FMAs";
  EXPECT_GE(count_matches(a, R"(vbroadcastss[^\n]*zmm|\{1to16\})"), 14) << "one broadcast input per column";
  EXPECT_EQ(count_matches(a, "vgather"), 0);
}

TEST(NchwcCodegen, DepthwiseMicroKernelIsVectorFma) {
  if (codegen::host_target().float32_lanes() < 16) GTEST_SKIP() << "checks AVX-512 code";
  const std::string a =
      default_assembly("depthwise_nchwc", "c=32,h=112,w=112,k=32,r=3,s=3,pad=1", codegen::host_target());
  EXPECT_GE(count_matches(a, R"(vfmadd...ps\s+[^\n]*zmm)"), 9);
  EXPECT_EQ(count_matches(a, "vgather"), 0);
}

}  // namespace
}  // namespace tf

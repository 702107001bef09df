// Every point of the dense config space must compile and compute the right answer: random points
// of the space on awkward shapes, checked against the double-precision reference.
#include <gtest/gtest.h>

#include "compiler/error.h"
#include "compiler/ops/operator.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"

namespace tf {
namespace {

using testing_support::expect_configs_correct;

class DenseSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

TEST_F(DenseSpace, HundredRandomConfigsOnAnOddShape) { expect_configs_correct("dense", "37,45,70", 100, 1); }
TEST_F(DenseSpace, OneByOneByOne) { expect_configs_correct("dense", "1,1,1", 10, 2); }
TEST_F(DenseSpace, SevenByThirteenBy129) { expect_configs_correct("dense", "7,13,129", 25, 3); }
TEST_F(DenseSpace, ThousandBy77By333) { expect_configs_correct("dense", "1000,77,333", 12, 4); }
TEST_F(DenseSpace, SingleRow) { expect_configs_correct("dense", "1,1000,512", 12, 5); }
TEST_F(DenseSpace, DividingShapeWithKBlocking) { expect_configs_correct("dense", "48,64,256", 25, 6); }
TEST_F(DenseSpace, TransposedB) { expect_configs_correct("dense_nt", "19,40,96", 25, 7); }
TEST_F(DenseSpace, Bias) { expect_configs_correct("dense_bias", "24,33,128", 25, 8); }
TEST_F(DenseSpace, BiasRelu) { expect_configs_correct("dense_bias_relu", "30,64,192", 25, 9); }
TEST_F(DenseSpace, BiasGelu) { expect_configs_correct("dense_bias_gelu", "26,40,96", 20, 10); }
TEST_F(DenseSpace, BiasGeluTanh) { expect_configs_correct("dense_bias_gelu_tanh", "17,33,64", 20, 11); }
TEST_F(DenseSpace, BiasResidualAdd) { expect_configs_correct("dense_bias_add", "30,48,80", 20, 12); }
// B prepacked into panels of P columns: ragged last panels, a single row, every epilogue.
TEST_F(DenseSpace, PackedRaggedPanels) { expect_configs_correct("dense_packed", "37,45,70,16", 25, 13); }
TEST_F(DenseSpace, PackedSingleRow) { expect_configs_correct("dense_packed_bias", "1,1000,512,32", 10, 14); }
TEST_F(DenseSpace, PackedGelu) { expect_configs_correct("dense_packed_bias_gelu", "24,72,64,32", 15, 15); }
TEST_F(DenseSpace, PackedGeluTanh) { expect_configs_correct("dense_packed_bias_gelu_tanh", "9,40,48,32", 10, 16); }
TEST_F(DenseSpace, PackedResidualAdd) { expect_configs_correct("dense_packed_bias_add", "30,96,80,64", 15, 17); }
TEST_F(DenseSpace, PackedRelu) { expect_configs_correct("dense_packed_bias_relu", "16,48,32,16", 10, 18); }

TEST(DenseShape, APanelWiderThanTheMatrixAndAVectorGroupIsRefusedByName) {
  try {
    ops::check_workload(ops::Workload{"dense_packed", {8, 8, 8, 100}});
    FAIL() << "P = 100 accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("extent P = 100"), std::string::npos) << e.what();
  }
}

// A single row reads each weight once: the default streams B as it lies (packing it each call
// would write and read it again), in the widest tile.
TEST(DenseSpaceDefaults, ASingleRowDoesNotPackB) {
  compiler::Task task({"dense_bias", {1, 1000, 1280}}, codegen::host_target());
  const space::Config def = task.space().default_config();
  EXPECT_FALSE(def.get_bool("pack_b"));
  EXPECT_EQ(def.get_int("kc"), 1280);
  compiler::Task rows({"dense_bias", {128, 3072, 768}}, codegen::host_target());
  EXPECT_TRUE(rows.space().default_config().get_bool("pack_b"));
}

// Once crashed: a 3-lane vector load at an index with a large odd constant (-1651667) was given
// 16-byte alignment, because the alignment analysis capped the constant at 2^20.
TEST_F(DenseSpace, RaggedEdgesOfAFusedParallelLoop) {
  compiler::Task task({"dense", {1000, 77, 333}}, codegen::host_target());
  compiler::KernelRunner runner(task.op(), task.workload().shape, 12);
  auto kernel =
      task.build_jit(task.parse_config(R"({"mr":4,"nr":16,"mb":4,"unroll_k":1,"pack_b":true,"parallel":true})"));
  ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
  EXPECT_TRUE(runner.check().pass);
}

TEST(DenseCodegen, HandPickedTileIsVectorizedWithFma) {
  compiler::Task task({"dense", {96, 96, 96}}, codegen::host_target());
  auto cfg = task.parse_config(R"({"mr": 6, "nr": 16, "pack_b": true, "unroll_k": 4})");
  codegen::CodegenOptions opts;
  opts.keep_assembly = true;
  auto kernel = task.build_jit(cfg, nullptr, opts);
  const std::string& asm_text = kernel->assembly();
  EXPECT_NE(asm_text.find("vfmadd"), std::string::npos) << "no FMA in the micro-kernel";
  EXPECT_TRUE(asm_text.find("ymm") != std::string::npos || asm_text.find("zmm") != std::string::npos);
}

// The next panel's lines are asked for inside the k loop, and the tile of accumulators still lives
// in registers there: no store to the stack between the prefetches.
TEST(DenseCodegen, PrefetchOfTheNextPanelKeepsTheTileInRegisters) {
  const codegen::Target host = codegen::host_target();
  if (host.triple.rfind("x86_64", 0) != 0) GTEST_SKIP() << "checks x86 assembly";
  // A tile of two vectors' width with room to spare in the register file: 8 x 2 zmm on AVX-512,
  // 4 x 2 ymm on AVX2 (6 x 2 leaves LLVM one ymm short with the k loop unrolled).
  const int64_t panel = 2 * host.float32_lanes(), rows = host.vector_registers >= 32 ? 8 : 4;
  compiler::Task task({"dense_packed_bias", {64, 256, 128, panel}}, host);
  codegen::CodegenOptions opts;
  opts.keep_assembly = true;
  const std::string config = R"({"mr":)" + std::to_string(rows) + R"(,"nr":)" + std::to_string(panel) +
                             R"(,"kc":128,"mb":8,"order":"mn","unroll_k":4,"prefetch":true})";
  auto kernel = task.build_jit(task.parse_config(config), nullptr, opts);
  const std::string& text = kernel->assembly();
  const size_t first = text.find("prefetcht1");
  ASSERT_NE(first, std::string::npos) << text;
  const size_t loop_end = text.find("prefetcht1", first + 1) != std::string::npos ? text.find("prefetcht1", first + 1)
                                                                                  : text.find("\tj", first);
  const std::string loop = text.substr(first, loop_end - first);
  EXPECT_NE(loop.find("vfmadd"), std::string::npos) << loop;
  EXPECT_EQ(loop.find("(%rsp)\n"), std::string::npos) << "the tile is spilled to the stack in the k loop:\n" << loop;

  compiler::KernelRunner runner(task.op(), task.workload().shape, 19);
  ASSERT_EQ(runner.run(kernel->entry()), TF_OK);
  EXPECT_TRUE(runner.check().pass);
}

}  // namespace
}  // namespace tf

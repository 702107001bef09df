// Every point of the dense config space must compile and compute the right answer: random points
// of the space on awkward shapes, checked against the double-precision reference.
#include <gtest/gtest.h>

#include "runtime/thread_pool.h"
#include "tests/config_check.h"

namespace tf {
namespace {

using testing_support::expect_configs_correct;

class DenseSpace : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

TEST_F(DenseSpace, TwoHundredRandomConfigsOnAnOddShape) { expect_configs_correct("dense", "37,45,70", 200, 1); }
TEST_F(DenseSpace, OneByOneByOne) { expect_configs_correct("dense", "1,1,1", 10, 2); }
TEST_F(DenseSpace, SevenByThirteenBy129) { expect_configs_correct("dense", "7,13,129", 25, 3); }
TEST_F(DenseSpace, ThousandBy77By333) { expect_configs_correct("dense", "1000,77,333", 12, 4); }
TEST_F(DenseSpace, SingleRow) { expect_configs_correct("dense", "1,1000,512", 12, 5); }
TEST_F(DenseSpace, DividingShapeWithKBlocking) { expect_configs_correct("dense", "48,64,256", 25, 6); }
TEST_F(DenseSpace, TransposedB) { expect_configs_correct("dense_nt", "19,40,96", 25, 7); }
TEST_F(DenseSpace, Bias) { expect_configs_correct("dense_bias", "24,33,128", 25, 8); }
TEST_F(DenseSpace, BiasRelu) { expect_configs_correct("dense_bias_relu", "30,64,192", 25, 9); }

// Once crashed: a 3-lane vector load at an index with a large odd constant (-1651667) was given
// 16-byte alignment, because the alignment analysis capped the constant at 2^20.
TEST_F(DenseSpace, RaggedEdgesOfAFusedParallelLoop) {
  compiler::Task task({"dense", {1000, 77, 333}}, codegen::host_target());
  cli::KernelRunner runner(task.op(), task.workload().shape, 12);
  auto kernel = task.build_jit(task.parse_config(R"({"mr":4,"nr":16,"mb":4,"unroll_k":1,"pack_b":true,"parallel":true})"));
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

}  // namespace
}  // namespace tf

// The model-level operators (softmax, layer_norm, reduce_mean, pooling, transpose, concat,
// batch_matmul, attention) against their double-precision references on odd shapes (sizes not divisible by
// the vector width, asymmetric pads, rank 1 and 6), every config of the small spaces and sampled
// configs of batch_matmul's; named shapes and their refusals naming the field.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"

namespace tf {
namespace {

// Default config first, then every config (small spaces) or `samples` random ones.
void expect_configs_correct(const std::string& op, const std::string& shape_text,
                            int samples = testing_support::kEveryConfig, uint64_t seed = 1) {
  testing_support::expect_configs_correct(op, shape_text, samples, seed, /*corners=*/false);
}

std::string refusal(const std::string& op, const std::string& shape_text) {
  try {
    ops::check_workload({op, ops::parse_shape(op, shape_text)});
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

class ModelOps : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

TEST_F(ModelOps, Softmax) {
  for (const char* s :
       {"rows=1,cols=1", "rows=3,cols=7", "rows=5,cols=16", "rows=4,cols=33", "rows=2,cols=1000", "rows=130,cols=61"}) {
    expect_configs_correct("softmax", s);
  }
}

TEST_F(ModelOps, LayerNorm) {
  for (const char* s : {"rows=1,cols=3", "rows=3,cols=17", "rows=4,cols=768", "rows=70,cols=100,eps_e12=1000000",
                        "rows=3,cols=12,eps_e12=100000000000"}) {
    expect_configs_correct("layer_norm", s);
  }
  EXPECT_EQ(ops::parse_shape("layer_norm", "rows=2,cols=8"), (std::vector<int64_t>{2, 8, 10000000}));
}

TEST_F(ModelOps, ReduceMean) {
  for (const char* s : {"rows=1,cols=1", "rows=7,cols=3", "rows=5,cols=100", "rows=300,cols=64"})
    expect_configs_correct("reduce_mean", s);
}

// uint8 too (a quantized model's activations): its padding must never win, though 0 is a value.
TEST_F(ModelOps, MaxPool2d) {
  for (const char* op : {"max_pool2d", "max_pool2d_u8"}) {
    for (const char* s : {"c=3,h=9,w=11,r=3,s=3,stride=2,pad=1", "n=2,c=4,h=8,w=8,r=2,s=2,stride=2",
                          "c=2,h=7,w=13,r=3,s=2,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1", "c=1,h=5,w=40,r=3,s=3",
                          "c=8,h=112,w=112,r=3,s=3,stride=2,pad=1"}) {
      expect_configs_correct(op, s);
    }
  }
}

TEST_F(ModelOps, AvgPool2dWithAndWithoutPaddingCounted) {
  for (const char* pad : {"", ",count_include_pad=1"}) {
    for (const char* s :
         {"c=3,h=9,w=11,r=3,s=3,stride=2,pad=1", "n=2,c=4,h=8,w=8,r=2,s=2,stride=2",
          "c=2,h=7,w=19,r=3,s=2,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1", "c=4,h=20,w=20,r=5,s=5,pad=2"}) {
      expect_configs_correct("avg_pool2d", std::string(s) + pad);
    }
  }
}

TEST_F(ModelOps, GlobalAvgPool2d) {
  for (const char* s : {"c=5,h=7,w=7", "n=2,c=3,h=4,w=5", "c=1,h=1,w=1", "c=64,h=14,w=14"})
    expect_configs_correct("global_avg_pool2d", s);
  compiler::Task task({"global_avg_pool2d", {2, 3, 4, 5}}, codegen::host_target());
  EXPECT_EQ(task.op().output_shape(task.workload().shape), (std::vector<int64_t>{2, 3, 1, 1}));
}

TEST_F(ModelOps, Transpose) {
  for (const char* s : {"rank=1,d0=37,p0=0", "rank=2,d0=5,d1=17,p0=1,p1=0", "rank=2,d0=64,d1=48,p0=1,p1=0",
                        "rank=3,d0=4,d1=6,d2=19,p0=2,p1=0,p2=1", "rank=4,d0=2,d1=3,d2=5,d3=33,p0=0,p1=2,p2=1,p3=3",
                        "rank=4,d0=1,d1=12,d2=20,d3=64,p0=0,p1=2,p2=1,p3=3",
                        "rank=6,d0=2,d1=1,d2=3,d3=2,d4=5,d5=3,p0=5,p1=4,p2=3,p3=2,p4=1,p5=0"}) {
    expect_configs_correct("transpose", s);
  }
  compiler::Task task({"transpose", ops::parse_shape("transpose", "rank=3,d0=4,d1=6,d2=19,p0=2,p1=0,p2=1")},
                      codegen::host_target());
  EXPECT_EQ(task.op().output_shape(task.workload().shape), (std::vector<int64_t>{19, 4, 6}));
}

TEST_F(ModelOps, Concat) {
  for (const char* s :
       {"rank=4,axis=1,inputs=3,d0=1,d2=5,d3=7,a0=2,a1=3,a2=1", "rank=2,axis=1,inputs=2,d0=3,a0=5,a1=17",
        "rank=1,axis=0,inputs=4,a0=3,a1=1,a2=16,a3=9", "rank=3,axis=0,inputs=1,d1=2,d2=20,a0=3",
        "rank=4,axis=1,inputs=8,d0=1,d2=3,d3=18,a0=1,a1=2,a2=3,a3=4,a4=5,a5=6,a6=7,a7=8"}) {
    expect_configs_correct("concat", s);
  }
}

TEST_F(ModelOps, BatchMatmulSampledConfigs) {
  expect_configs_correct("batch_matmul", "B=2,M=7,N=19,K=5", 6, 11);
  expect_configs_correct("batch_matmul", "B=3,M=33,N=40,K=64", 6, 12);
  expect_configs_correct("batch_matmul_nt", "B=3,M=5,N=33,K=17,scale_e9=125000000", 6, 13);
  expect_configs_correct("batch_matmul_nt", "B=12,M=16,N=16,K=64,scale_e9=125000000", 4, 14);
  expect_configs_correct("batch_matmul", "B=1,M=1,N=1,K=1", testing_support::kEveryConfig, 15);
}

// Rows not a multiple of the row block, keys and head widths not multiples of the vector width,
// one head and several, batches of two; the masked variant with a mask that varies per batch.
TEST_F(ModelOps, AttentionSampledConfigs) {
  expect_configs_correct("attention", "B=1,S=1,T=1,H=1,D=1", testing_support::kEveryConfig, 21);
  expect_configs_correct("attention", "B=2,S=7,T=9,H=3,D=5,scale_e9=300000000", 8, 22);
  expect_configs_correct("attention", "B=1,S=33,T=40,H=2,D=24", 8, 23);
  expect_configs_correct("attention_masked", "B=2,S=13,T=19,H=2,D=16,scale_e9=250000000", 8, 24);
  expect_configs_correct("attention_masked", "B=1,S=64,T=64,H=4,D=64,scale_e9=125000000", 4, 25);
}

TEST_F(ModelOps, NamedShapesReadBackFromTheirText) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"max_pool2d", "c=3,h=9,w=11,r=3,s=3,stride=2,pad=1"},
      {"avg_pool2d", "c=2,h=7,w=13,r=3,s=2,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1,count_include_pad=1"},
      {"global_avg_pool2d", "n=2,c=3,h=4,w=5"},
      {"layer_norm", "rows=4,cols=768,eps_e12=1000000"},
      {"transpose", "rank=3,d0=4,d1=6,d2=19,p0=2,p1=0,p2=1"},
      {"concat", "rank=4,axis=1,inputs=2,d0=1,d2=5,d3=7,a0=2,a1=3"},
      {"batch_matmul_nt", "B=12,M=384,N=384,K=64,scale_e9=125000000"},
      {"attention_masked", "B=1,S=128,T=128,H=12,D=64,scale_e9=125000000"},
  };
  for (const auto& [op, text] : cases) {
    const auto shape = ops::parse_shape(op, text);
    const std::string back = ops::find_operator(op).shape_text(shape);
    EXPECT_EQ(ops::parse_shape(op, back), shape) << op << " " << text << " -> " << back;
    EXPECT_EQ(refusal(op, text), "") << op << " " << text;
    EXPECT_GT(ops::find_operator(op).flops(shape), 0) << op;
  }
}

TEST_F(ModelOps, NonsenseShapesAreRefusedNamingTheField) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"max_pool2d", "c=3,h=4,w=4,r=6,s=3", "r "},
      {"max_pool2d", "c=3,h=4,w=4,r=3,s=3,pad=3", "pad_top"},
      {"max_pool2d", "c=0,h=4,w=4,r=3,s=3", "c "},
      {"max_pool2d", "c=3,h=4,w=4,r=3,s=3,count_include_pad=1", "count_include_pad"},
      {"avg_pool2d", "c=3,h=4,w=4,r=3,s=3,count_include_pad=2", "count_include_pad"},
      {"avg_pool2d", "c=3,h=8,w=8,r=3,s=3,pad_left=-1", "pad_left"},
      {"global_avg_pool2d", "c=3,h=0,w=4", "h "},
      {"softmax", "rows=0,cols=5", "rows"},
      {"layer_norm", "rows=2,cols=8,eps_e12=2000000000000", "eps_e12"},
      {"transpose", "rank=3,d0=4,d1=6,d2=19,p0=2,p1=2,p2=1", "p1"},
      {"transpose", "rank=2,d0=4,d1=6,p0=2,p1=0", "p0"},
      {"transpose", "rank=7,d0=4", "rank"},
      {"transpose", "rank=2,d0=4,p0=1,p1=0", "d1"},
      {"concat", "rank=2,axis=2,inputs=2,d0=3,d1=4,a0=2,a1=2", "axis"},
      {"concat", "rank=2,axis=1,inputs=2,d0=3,d1=5,a0=2,a1=2", "d1"},
      {"concat", "rank=2,axis=1,inputs=9,d0=3,a0=1", "inputs"},
      {"batch_matmul", "B=0,M=2,N=2,K=2", "B"},
      {"attention", "B=1,S=4,T=0,H=2,D=8", "T"},
      {"attention_masked", "B=1,S=4,T=4,H=2", "D="},
      {"batch_matmul", "M=2,N=2,K=2", "B="},
  };
  for (const auto& [op, text, field] : cases) {
    const std::string why = refusal(op, text);
    EXPECT_NE(why.find(field), std::string::npos) << op << " " << text << ": '" << why << "' does not name " << field;
  }
}

}  // namespace
}  // namespace tf

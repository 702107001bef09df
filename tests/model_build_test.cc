// Building a model: ONNX graphs written in the test (a small CNN with every epilogue and pooling, a
// small transformer layer with attention, GELU and layer norms) planned, compiled into a .tfm, run
// by the model runtime and compared with the test-only evaluator on the imported graph; the memory
// plan never lets two live buffers share bytes; refusals name the node.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/error.h"
#include "graph/build.h"
#include "graph/memory_plan.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "tests/graph_evaluator.h"
#include "tests/onnx_model_builder.h"

namespace tf::graph {
namespace {

using testing::Evaluator;
using testing::OnnxModelBuilder;
using testing::random_tensor;

std::vector<float> random_floats(const Shape& s, uint32_t seed, float lo = -1, float hi = 1) {
  return random_tensor(s, seed, lo, hi).f32;
}

// x [1,3,10,9] -> conv+BN+relu -> maxpool -> conv + residual + relu (features) -> depthwise conv +
// clip(0,6) -> global average pool -> flatten -> gemm -> softmax (probs).
std::string small_cnn() {
  OnnxModelBuilder b(13);
  b.input("x", {1, 3, 10, 9}).output("probs").output("features");
  b.floats("w1", {8, 3, 3, 3}, random_floats({8, 3, 3, 3}, 1)).floats("b1", {8}, random_floats({8}, 2));
  b.floats("scale", {8}, random_floats({8}, 3, 0.5f, 1.5f)).floats("shift", {8}, random_floats({8}, 4));
  b.floats("mean", {8}, random_floats({8}, 5)).floats("var", {8}, random_floats({8}, 6, 0.5f, 2.0f));
  b.floats("w2", {8, 8, 3, 3}, random_floats({8, 8, 3, 3}, 7)).floats("b2", {8}, random_floats({8}, 8));
  b.floats("wd", {8, 1, 3, 3}, random_floats({8, 1, 3, 3}, 9)).floats("bd", {8}, random_floats({8}, 10));
  b.floats("lo", {}, {0.0f}).floats("hi", {}, {6.0f});
  b.floats("wg", {10, 8}, random_floats({10, 8}, 11)).floats("bg", {10}, random_floats({10}, 12));
  auto& c1 = b.node("Conv", {"x", "w1", "b1"}, {"y1"}, "conv1");
  OnnxModelBuilder::attr(c1, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("BatchNormalization", {"y1", "scale", "shift", "mean", "var"}, {"y2"}, "bn1");
  b.node("Relu", {"y2"}, {"y3"}, "relu1");
  auto& pool = b.node("MaxPool", {"y3"}, {"y4"}, "pool1");
  OnnxModelBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{3, 3});
  OnnxModelBuilder::attr(pool, "strides", std::vector<int64_t>{2, 2});
  OnnxModelBuilder::attr(pool, "pads", std::vector<int64_t>{1, 1, 1, 1});
  auto& c2 = b.node("Conv", {"y4", "w2", "b2"}, {"y5"}, "conv2");
  OnnxModelBuilder::attr(c2, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Add", {"y5", "y4"}, {"y6"}, "residual");
  b.node("Relu", {"y6"}, {"features"}, "relu2");
  auto& dw = b.node("Conv", {"features", "wd", "bd"}, {"y8"}, "depthwise");
  OnnxModelBuilder::attr(dw, "pads", std::vector<int64_t>{1, 1, 1, 1});
  OnnxModelBuilder::attr(dw, "group", int64_t{8});
  b.node("Clip", {"y8", "lo", "hi"}, {"y9"}, "relu6");
  b.node("GlobalAveragePool", {"y9"}, {"y10"}, "gap");
  b.node("Flatten", {"y10"}, {"y11"}, "flatten");
  auto& gemm = b.node("Gemm", {"y11", "wg", "bg"}, {"y12"}, "fc");
  OnnxModelBuilder::attr(gemm, "transB", int64_t{1});
  b.node("Softmax", {"y12"}, {"probs"}, "softmax");
  return b.bytes();
}

// A transformer encoder layer in miniature: x [1,6,16], two heads of 8, FFN 32, GELU with Erf.
std::string small_transformer() {
  OnnxModelBuilder b(17);
  b.input("x", {1, 6, 16}).output("out");
  uint32_t seed = 20;
  for (const char* p : {"q", "k", "v", "o"}) {
    b.floats(std::string("w") + p, {16, 16}, random_floats({16, 16}, seed++, -0.3f, 0.3f));
    b.floats(std::string("b") + p, {16}, random_floats({16}, seed++));
  }
  b.floats("w1", {16, 32}, random_floats({16, 32}, seed++, -0.3f, 0.3f));
  b.floats("b1", {32}, random_floats({32}, seed++));
  b.floats("w2", {32, 16}, random_floats({32, 16}, seed++, -0.3f, 0.3f));
  b.floats("b2", {16}, random_floats({16}, seed++));
  b.floats("g1", {16}, random_floats({16}, seed++, 0.5f, 1.5f));
  b.floats("be1", {16}, random_floats({16}, seed++));
  b.floats("g2", {16}, random_floats({16}, seed++, 0.5f, 1.5f));
  b.floats("be2", {16}, random_floats({16}, seed++));
  b.ints("heads", {4}, {1, 6, 2, 8}).ints("merged", {3}, {1, 6, 16});
  b.floats("sqrt_d", {}, {std::sqrt(8.0f)}).floats("sqrt2", {}, {std::sqrt(2.0f)});
  b.floats("one", {}, {1.0f}).floats("half", {}, {0.5f});
  auto project = [&](const std::string& p, const std::vector<int64_t>& perm) {
    b.node("MatMul", {"x", "w" + p}, {p + "_mm"}, p + "_proj");
    b.node("Add", {p + "_mm", "b" + p}, {p + "_b"}, p + "_bias");
    b.node("Reshape", {p + "_b", "heads"}, {p + "_r"}, p + "_split");
    auto& t = b.node("Transpose", {p + "_r"}, {p + "_h"}, p + "_heads");
    OnnxModelBuilder::attr(t, "perm", perm);
  };
  project("q", {0, 2, 1, 3});
  project("k", {0, 2, 3, 1});
  project("v", {0, 2, 1, 3});
  b.node("MatMul", {"q_h", "k_h"}, {"scores"}, "qk");
  b.node("Div", {"scores", "sqrt_d"}, {"scaled"}, "scale");
  auto& sm = b.node("Softmax", {"scaled"}, {"attn"}, "softmax");
  OnnxModelBuilder::attr(sm, "axis", int64_t{-1});
  b.node("MatMul", {"attn", "v_h"}, {"ctx"}, "av");
  auto& tr = b.node("Transpose", {"ctx"}, {"ctx_t"}, "merge_heads");
  OnnxModelBuilder::attr(tr, "perm", std::vector<int64_t>{0, 2, 1, 3});
  b.node("Reshape", {"ctx_t", "merged"}, {"ctx_m"}, "merge");
  b.node("MatMul", {"ctx_m", "wo"}, {"o_mm"}, "o_proj");
  b.node("Add", {"o_mm", "bo"}, {"o_b"}, "o_bias");
  b.node("Add", {"o_b", "x"}, {"res1"}, "residual1");
  auto& ln1 = b.node("LayerNormalization", {"res1", "g1", "be1"}, {"ln1"}, "ln1");
  OnnxModelBuilder::attr(ln1, "axis", int64_t{-1});
  b.node("MatMul", {"ln1", "w1"}, {"f1"}, "ffn1");
  b.node("Add", {"f1", "b1"}, {"f1b"}, "ffn1_bias");
  b.node("Div", {"f1b", "sqrt2"}, {"g_div"}, "gelu_div");
  b.node("Erf", {"g_div"}, {"g_erf"}, "gelu_erf");
  b.node("Add", {"g_erf", "one"}, {"g_add"}, "gelu_add");
  b.node("Mul", {"f1b", "g_add"}, {"g_mul"}, "gelu_mul");
  b.node("Mul", {"g_mul", "half"}, {"gelu"}, "gelu_half");
  b.node("MatMul", {"gelu", "w2"}, {"f2"}, "ffn2");
  b.node("Add", {"f2", "b2"}, {"f2b"}, "ffn2_bias");
  b.node("Add", {"f2b", "ln1"}, {"res2"}, "residual2");
  auto& ln2 = b.node("LayerNormalization", {"res2", "g2", "be2"}, {"out"}, "ln2");
  OnnxModelBuilder::attr(ln2, "axis", int64_t{-1});
  return b.bytes();
}

// Imports, evaluates the imported graph in plain loops, builds and runs the .tfm, and compares.
void expect_built_model_matches_evaluator(const std::string& onnx, const std::string& what, int expected_outputs) {
  const Graph imported = import_onnx_bytes(onnx, what);
  std::map<std::string, Tensor> inputs;
  uint32_t seed = 100;
  for (const auto& in : imported.inputs) inputs[in] = random_tensor(imported.value(in).shape, seed++);
  const auto want = Evaluator(imported).run(inputs);

  BuildOptions options;
  options.target = codegen::host_target();
  BuildReport report;
  runtime::model::Executor exec(build_model(plan_graph(imported), options, &report));
  EXPECT_GT(report.arena_bytes, 0);
  std::map<std::string, std::vector<float>> feeds;
  for (const auto& [name, t] : inputs) feeds[name] = t.f32;
  const auto got = exec.run_floats(feeds);
  ASSERT_EQ(static_cast<int>(got.size()), expected_outputs);
  for (const auto& [name, data] : got) {
    const Tensor& w = want.at(name);
    ASSERT_EQ(static_cast<int64_t>(data.size()), w.size()) << name;
    EXPECT_LT(testing::max_relative_difference(Tensor::floats(w.shape, data), w), 1e-4) << what << " output " << name;
  }
}

TEST(ModelBuild, ASmallCnnWithEveryEpilogueRunsAsTheGraphSays) {
  expect_built_model_matches_evaluator(small_cnn(), "small_cnn", 2);
}

TEST(ModelBuild, ASmallTransformerLayerRunsAsTheGraphSays) {
  expect_built_model_matches_evaluator(small_transformer(), "small_transformer", 1);
}

TEST(ModelBuild, PlanLayoutsKeepsActivationsBlockedBetweenConvolutionsAndConvertsOnlyWhereReadPlainly) {
  const Graph planned = plan_graph(import_onnx_bytes(small_cnn(), "cnn"));
  const auto ops = count_ops(planned);
  EXPECT_EQ(ops.at("conv2d_nchwc_bias_relu"), 1);      // conv1 (+ folded BN, relu), x read in place
  EXPECT_EQ(ops.at("conv2d_nchwc_bias_add_relu"), 1);  // conv2 + residual
  EXPECT_EQ(ops.at("depthwise_nchwc_bias_clip"), 1);
  // The pool runs blocked; conv2 reads its 8 channels in the block of 16 they are in, and so does
  // the residual. In: none (conv1 reads x's 3 channels as NCHW1c). Out: for the global pool (8
  // channels in a block of 16: not its blocked twin's) and the `features` output; the depthwise
  // conv reads conv2's blocked output directly.
  EXPECT_EQ(ops.at("max_pool2d_nchwc"), 1);
  EXPECT_EQ(ops.count("layout_to_nchwc"), 0u);
  EXPECT_EQ(ops.at("layout_from_nchwc"), 2);
  EXPECT_EQ(ops.count("global_avg_pool2d_nchwc"), 0u);
  EXPECT_EQ(ops.count("conv2d_bias_relu"), 0u);
  for (const Node& n : planned.nodes) {
    if (n.op != "conv2d_nchwc_bias_relu") continue;
    EXPECT_EQ(n.attr_ints("workload_shape", {}).back(), 16) << "ob";
    const auto extents = n.attr_ints("workload_shape", {});
    EXPECT_EQ(extents[extents.size() - 2], 1) << "ib of a 3-channel input";
    EXPECT_EQ(n.inputs[0], "x") << "the plain input itself";
  }
}

// x [1,3,12,11] -> conv (32 channels) + relu -> GlobalAveragePool and GlobalMaxPool -> two outputs
std::string cnn_head() {
  OnnxModelBuilder b(13);
  b.input("x", {1, 3, 12, 11}).output("mean").output("max");
  b.floats("w", {32, 3, 3, 3}, random_floats({32, 3, 3, 3}, 31)).floats("bias", {32}, random_floats({32}, 32));
  auto& conv = b.node("Conv", {"x", "w", "bias"}, {"y"}, "conv");
  OnnxModelBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"y"}, {"r"}, "relu");
  b.node("GlobalAveragePool", {"r"}, {"mean"}, "gap");
  b.node("GlobalMaxPool", {"r"}, {"max"}, "gmp");
  return b.bytes();
}

// The global pools of a head read the blocked activation and write plain results: the model has no
// layout conversion at all, and computes what the graph says.
TEST(ModelBuild, GlobalPoolsOfABlockedActivationNeedNoConversion) {
  const auto ops = count_ops(plan_graph(import_onnx_bytes(cnn_head(), "head")));
  EXPECT_EQ(ops.at("global_avg_pool2d_nchwc"), 1);
  EXPECT_EQ(ops.at("global_max_pool2d_nchwc"), 1);
  EXPECT_EQ(ops.count("layout_to_nchwc"), 0u);
  EXPECT_EQ(ops.count("layout_from_nchwc"), 0u);
  expect_built_model_matches_evaluator(cnn_head(), "cnn_head", 2);
}

// x [1,3,9,10] -> conv (32 channels) + relu -> r; a squeeze-and-excitation scale of r (global
// average pool, 1x1 convs, sigmoid) multiplies r per channel -> conv (16 channels) -> y
std::string squeeze_excitation() {
  OnnxModelBuilder b(13);
  b.input("x", {1, 3, 9, 10}).output("y");
  b.floats("w", {32, 3, 3, 3}, random_floats({32, 3, 3, 3}, 41)).floats("bias", {32}, random_floats({32}, 42));
  b.floats("w_squeeze", {8, 32, 1, 1}, random_floats({8, 32, 1, 1}, 43));
  b.floats("w_excite", {32, 8, 1, 1}, random_floats({32, 8, 1, 1}, 44));
  b.floats("w_out", {16, 32, 3, 3}, random_floats({16, 32, 3, 3}, 45));
  auto& conv = b.node("Conv", {"x", "w", "bias"}, {"c"}, "conv");
  OnnxModelBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("GlobalAveragePool", {"r"}, {"pooled"}, "gap");
  b.node("Conv", {"pooled", "w_squeeze"}, {"squeezed"}, "squeeze");
  b.node("Relu", {"squeezed"}, {"squeezed_relu"}, "squeeze_relu");
  b.node("Conv", {"squeezed_relu", "w_excite"}, {"excited"}, "excite");
  b.node("Sigmoid", {"excited"}, {"scale"}, "gate");
  b.node("Mul", {"r", "scale"}, {"scaled"}, "rescale");
  auto& out = b.node("Conv", {"scaled", "w_out"}, {"y"}, "conv_out");
  OnnxModelBuilder::attr(out, "pads", std::vector<int64_t>{1, 1, 1, 1});
  return b.bytes();
}

// The per-channel scale broadcasts over the blocked activation as it does over the plain one: the
// Mul reads both blocked, and the only conversion left is the model's output.
TEST(ModelBuild, ASqueezeExcitationScaleMultipliesTheBlockedActivation) {
  const Graph planned = plan_graph(import_onnx_bytes(squeeze_excitation(), "se"));
  const auto ops = count_ops(planned);
  EXPECT_EQ(ops.at("layout_from_nchwc"), 1);
  for (const Node& n : planned.nodes) {
    const bool scales = std::any_of(n.inputs.begin(), n.inputs.end(),
                                    [&](const std::string& v) { return v.find("scale") != std::string::npos; });
    if (!scales || n.op.find("elementwise") == std::string::npos) continue;
    for (const auto& v : n.inputs) EXPECT_EQ(planned.value(v).shape.size(), 5u) << n.describe() << " reads " << v;
  }
  expect_built_model_matches_evaluator(squeeze_excitation(), "squeeze_excitation", 1);
}

TEST(ModelBuild, IdenticalNodesShareOneKernelAndReshapesAreAliases) {
  BuildOptions options;
  options.target = codegen::host_target();
  BuildReport report;
  build_model(plan_graph(import_onnx_bytes(small_transformer(), "t")), options, &report);
  // q, k and v projections are one dense_packed_bias workload; the four reshapes and the flatten-free
  // layer need no kernel.
  int dense_bias_nodes = 0;
  for (const auto& k : report.kernels) {
    if (k.workload.rfind("dense_packed_bias[", 0) == 0 && k.nodes.size() >= 3)
      dense_bias_nodes = static_cast<int>(k.nodes.size());
  }
  EXPECT_GE(dense_bias_nodes, 3);
  EXPECT_EQ(report.aliases, 4u);
  EXPECT_LT(report.kernels.size(), report.steps);
}

TEST(ModelBuild, TheDatabasesConfigIsUsedWhereItFitsAndTheDefaultWhereNot) {
  BuildOptions options;
  options.target = codegen::host_target();
  int asked = 0;
  options.config_for = [&](const ops::Workload& w) -> std::optional<std::string> {
    ++asked;
    if (w.op == "conv2d_nchwc_bias_relu") return std::string("{\"no_such_knob\": 3}");
    return std::nullopt;
  };
  BuildReport report;
  build_model(plan_graph(import_onnx_bytes(small_cnn(), "cnn")), options, &report);
  EXPECT_EQ(asked, static_cast<int>(report.kernels.size()));
  bool saw_note = false;
  for (const auto& k : report.kernels) {
    EXPECT_FALSE(k.tuned) << k.workload;
    if (k.workload.rfind("conv2d_nchwc_bias_relu[", 0) == 0) {
      saw_note = true;
      EXPECT_NE(k.note.find("does not fit this space"), std::string::npos) << k.note;
    }
  }
  EXPECT_TRUE(saw_note);
}

TEST(ModelBuild, ANodeNoKernelCoversIsNamed) {
  OnnxModelBuilder b(13);
  b.input("x", {1, 4, 9, 9}).input("lo", {}).output("y");
  b.node("Clip", {"x", "lo"}, {"y"}, "computed_bound");
  BuildOptions options;
  options.target = codegen::host_target();
  try {
    build_model(plan_graph(import_onnx_bytes(b.bytes(), "clip")), options);
    FAIL() << "a Clip of a computed bound was built";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'computed_bound' (Clip)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("input 1 must be a constant"), std::string::npos) << e.what();
  }
}

TEST(MemoryPlan, LiveBuffersNeverShareBytesAndDeadOnesAreReused) {
  // A chain a -> b -> c -> d: a and c can share, b and d can share.
  const auto chain = plan_memory({{1000, -1, 0}, {1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}}, 64);
  EXPECT_EQ(chain.arena_bytes, 2 * 1024);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferLifetime> buffers;
    const int n = 1 + static_cast<int>(rng() % 30);
    int64_t sum = 0;
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(rng() % 20) - 1;
      buffers.push_back({1 + static_cast<int64_t>(rng() % 5000), first, first + static_cast<int>(rng() % 6)});
      sum += (buffers.back().bytes + 63) / 64 * 64;
    }
    const auto plan = plan_memory(buffers, 64);
    EXPECT_LE(plan.arena_bytes, sum);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0);
      EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.arena_bytes);
      for (int j = i + 1; j < n; ++j) {
        const bool live_together =
            buffers[i].first_step <= buffers[j].last_step && buffers[j].first_step <= buffers[i].last_step;
        const bool overlap = plan.offsets[i] < plan.offsets[j] + buffers[j].bytes &&
                             plan.offsets[j] < plan.offsets[i] + buffers[i].bytes;
        EXPECT_FALSE(live_together && overlap) << "trial " << trial << ": buffers " << i << " and " << j;
      }
    }
  }
}

}  // namespace
}  // namespace tf::graph

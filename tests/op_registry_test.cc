// The op registry (graph/ops/): an op's version at a model's opset comes from ONNX's schemas and
// is refused by name when no entry implements it; every version of an op normalizes to one
// canonical node; the old-opset semantics (Softmax coerced to 2-D, Clip bounds as attributes, Gemm's
// alpha/beta/transA) compute what ONNX says, checked through compiled kernels.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/ops/registry.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using testing::expect_near_all;
using testing::import_error;
using testing::OnnxModelBuilder;

const Node& only(const Graph& g, const std::string& op) {
  const Node* found = nullptr;
  for (const auto& n : g.nodes) {
    if (n.op == op) {
      EXPECT_EQ(found, nullptr) << "two " << op << " nodes";
      found = &n;
    }
  }
  if (!found) throw std::runtime_error("no " + op + " node");
  return *found;
}

std::vector<float> iota_floats(int64_t n, float scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f) * scale;
  return v;
}

// The model's one output run on `x`.
std::vector<float> run_compiled(const OnnxModelBuilder& b, const std::string& input, const std::vector<float>& x) {
  return testing::run_floats(b, {{input, x}}).begin()->second;
}

TEST(OpRegistry, AnOpsVersionComesFromOnnxsSchemasAtTheModelsOpset) {
  EXPECT_EQ(onnx_since_version("Clip", 7), 6);
  EXPECT_EQ(onnx_since_version("Clip", 12), 12);
  EXPECT_EQ(onnx_since_version("Softmax", 12), 11);
  EXPECT_EQ(onnx_since_version("ReduceMean", 17), 13);
  // Opsets libonnx-dev 1.12 predates (it knows 17) come from the versions ONNX added since.
  EXPECT_GE(onnx_schema_max_opset(), 17);
  EXPECT_EQ(onnx_since_version("ReduceMean", 18), 18);
  EXPECT_EQ(onnx_since_version("Reshape", 20), 19);
  EXPECT_EQ(onnx_since_version("Squeeze", 21), 21);
  EXPECT_EQ(onnx_since_version("LayerNormalization", 13), 0);
  EXPECT_EQ(onnx_since_version("NoSuchOp", 13), 0);

  OpVersion v;
  std::string why;
  const OpDef* clip = find_op_def("Clip", 9, &v, &why);
  ASSERT_NE(clip, nullptr) << why;
  EXPECT_EQ(v.since, 6);
  EXPECT_EQ(v.opset, 9);
  EXPECT_EQ(find_op_def("LayerNormalization", 13, &v, &why), nullptr);
  EXPECT_EQ(why, "op LayerNormalization is not in opset 13 (ONNX has it since opset 17)");
  EXPECT_EQ(find_op_def("Det", 13, &v, &why), nullptr);
  EXPECT_EQ(why, "op Det is not supported");
  EXPECT_EQ(find_op_def("conv2d_bias_relu", 13, &v, &why), nullptr) << "a fused kernel is no ONNX op";
}

TEST(OpRegistry, AVersionNoEntryImplementsIsRefusedByName) {
  OpDef partial;
  partial.name = "Clip";
  partial.versions = {6, 11};
  OpVersion v;
  std::string why;
  EXPECT_TRUE(implements(partial, 11, &v, &why));
  EXPECT_FALSE(implements(partial, 13, &v, &why));
  EXPECT_EQ(why, "op Clip version 13 (opset 13) is not supported (implemented: 6, 11)");
  EXPECT_FALSE(implements(partial, 12, &v, &why));
  EXPECT_EQ(why, "op Clip version 12 (opset 12) is not supported (implemented: 6, 11)");
}

// Every listed version is one ONNX defines, and every opset of 7-21 at which the op exists maps
// to a listed version: nothing from kEveryVersionFromOpset to kMaxOpset is refused for its version alone.
TEST(OpRegistry, EveryEntryListsRealVersionsAndCoversEveryOpsetItExistsIn) {
  int onnx_entries = 0;
  for (const OpDef* def : all_op_defs()) {
    if (def->versions.empty()) continue;
    ++onnx_entries;
    for (int version : def->versions)
      EXPECT_EQ(onnx_since_version(def->name, version), version) << def->name << " version " << version;
    for (int64_t opset = kEveryVersionFromOpset; opset <= kMaxOpset; ++opset) {
      if (onnx_since_version(def->name, opset) == 0) continue;
      OpVersion v;
      std::string why;
      EXPECT_TRUE(implements(*def, opset, &v, &why)) << why;
    }
  }
  EXPECT_GE(onnx_entries, 34);
  for (const char* fused : {"conv2d_bias_add_relu", "dense_bias_relu", kFusedElementwise}) {
    ASSERT_NE(find_op_def(fused), nullptr) << fused;
    EXPECT_TRUE(find_op_def(fused)->lower) << fused << " must lower";
  }
  EXPECT_EQ(find_op_def("Relu")->fusion.epilogue, Epilogue::Relu);
  EXPECT_EQ(find_op_def("Gemm")->fusion.anchor, Anchor::Dense);
  EXPECT_TRUE(find_op_def("Tanh")->fusion.elementwise);
  EXPECT_FALSE(find_op_def("Identity")->fusion.elementwise);
}

TEST(OpRegistry, OpsetsOneToTwentyOneAreImportedAndOthersRefused) {
  for (int64_t opset : {0, 22}) {
    OnnxModelBuilder b(opset);
    b.input("x", {1, 4}).output("y");
    b.node("Relu", {"x"}, {"y"});
    EXPECT_NE(import_error(b).find("opset " + std::to_string(opset) + " is not supported (opsets 1-21)"),
              std::string::npos)
        << opset;
  }
  // Reshape-1 (opsets 1-4) took its shape as an attribute; Reshape-5 is today's op.
  OnnxModelBuilder reshape1(4);
  reshape1.input("x", {1, 4}).output("y");
  OnnxModelBuilder::attr(reshape1.node("Reshape", {"x"}, {"y"}, "r"), "shape", std::vector<int64_t>{4});
  EXPECT_NE(
      import_error(reshape1).find("op Reshape version 1 (opset 4) is not supported (implemented: 5, 13, 14, 19, 21)"),
      std::string::npos)
      << import_error(reshape1);
  for (int64_t opset : {1, 5, 6, 7, 9, 18, 21}) {
    OnnxModelBuilder b(opset);
    b.input("x", {1, 4}).output("y");
    b.node("Relu", {"x"}, {"y"});
    EXPECT_EQ(import_error(b), "") << opset;
  }
}

// Clip-6's attributes and Clip-13's inputs are one canonical Clip: bounds as scalar constant inputs.
TEST(OpRegistry, ClipBoundsAsAttributesOrInputsNormalizeToOneNode) {
  OnnxModelBuilder old_clip(7);
  old_clip.input("x", {1, 8}).output("y");
  auto& c6 = old_clip.node("Clip", {"x"}, {"y"}, "clip");
  OnnxModelBuilder::float_attr(c6, "min", 0.0f);
  OnnxModelBuilder::float_attr(c6, "max", 6.0f);
  OnnxModelBuilder new_clip(13);
  new_clip.input("x", {1, 8}).output("y").floats("lo", {}, {0.0f}).floats("hi", {}, {6.0f});
  new_clip.node("Clip", {"x", "lo", "hi"}, {"y"}, "clip");

  for (const auto* b : {&old_clip, &new_clip}) {
    const Graph g = import_onnx_bytes(b->bytes(), "clip.onnx");
    const Node& n = only(g, "Clip");
    EXPECT_TRUE(n.attrs.empty());
    ASSERT_EQ(n.inputs.size(), 3u);
    ASSERT_NE(g.constant(n.inputs[1]), nullptr);
    ASSERT_NE(g.constant(n.inputs[2]), nullptr);
    EXPECT_EQ(g.constant(n.inputs[1])->at(0), 0.0);
    EXPECT_EQ(g.constant(n.inputs[2])->at(0), 6.0);
  }
  const std::vector<float> x = iota_floats(8, 9.0f);
  std::vector<double> want;
  for (float v : x) want.push_back(std::min(std::max<double>(v, 0.0), 6.0));
  expect_near_all(run_compiled(old_clip, "x", x), want, 1e-6);
}

// Unsqueeze/Squeeze take axes as an attribute before 13 and as an input from 13; ReduceMean the
// same before and from 18. Each canonical node carries the attribute and reads one input.
TEST(OpRegistry, AxesAsAttributesOrInputsNormalizeToOneNode) {
  auto unsqueeze = [](int64_t opset) {
    OnnxModelBuilder b(opset);
    b.input("x", {2, 3}).output("y");
    if (opset < 13) {
      OnnxModelBuilder::attr(b.node("Unsqueeze", {"x"}, {"y"}, "u"), "axes", std::vector<int64_t>{0, -1});
    } else {
      b.ints("axes", {2}, {0, -1});
      b.node("Unsqueeze", {"x", "axes"}, {"y"}, "u");
    }
    return import_onnx_bytes(b.bytes(), "unsqueeze.onnx");
  };
  const Graph u11 = unsqueeze(11), u13 = unsqueeze(13);
  EXPECT_EQ(only(u11, "Unsqueeze").attrs, only(u13, "Unsqueeze").attrs);
  EXPECT_EQ(only(u13, "Unsqueeze").inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(u11.value("y").shape, (Shape{1, 2, 3, 1}));
  EXPECT_EQ(u13.value("y").shape, (Shape{1, 2, 3, 1}));

  auto reduce = [](int64_t opset, bool noop) {
    OnnxModelBuilder b(opset);
    b.input("x", {2, 3, 4}).output("y");
    const bool axes_input = opset >= 18 && !noop;
    if (axes_input) b.ints("axes", {1}, {-1});
    auto& n = b.node("ReduceMean", axes_input ? std::vector<std::string>{"x", "axes"} : std::vector<std::string>{"x"},
                     {"y"}, "r");
    if (opset < 18) OnnxModelBuilder::attr(n, "axes", std::vector<int64_t>{-1});
    if (noop) OnnxModelBuilder::attr(n, "noop_with_empty_axes", int64_t{1});
    return import_onnx_bytes(b.bytes(), "reduce.onnx");
  };
  const Graph r13 = reduce(13, false), r18 = reduce(18, false);
  EXPECT_EQ(only(r13, "ReduceMean").attrs, only(r18, "ReduceMean").attrs);
  EXPECT_EQ(only(r18, "ReduceMean").attr_ints("axes", {}), (std::vector<int64_t>{2}));
  EXPECT_EQ(r18.value("y").shape, (Shape{2, 3, 1}));
  // No axes with noop_with_empty_axes (18): the identity, which is no node at all.
  const Graph noop = reduce(18, true);
  EXPECT_EQ(count_ops(noop).count("ReduceMean"), 0u);
}

// Softmax before opset 13 is softmax over rows of the input coerced to 2-D at `axis`: on axis 1 of
// [2,3,4,5], each of the 2 rows of 60 sums to 1 (not each of the 2*4*5 columns of 3).
TEST(OpRegistry, SoftmaxBeforeThirteenComputesTheCoercedTwoDimensionalSoftmax) {
  const Shape shape = {2, 3, 4, 5};
  const std::vector<float> x = iota_floats(element_count(shape), 3.0f);
  for (int64_t opset : {11, 13}) {
    OnnxModelBuilder b(opset);
    b.input("x", shape).output("y");
    OnnxModelBuilder::attr(b.node("Softmax", {"x"}, {"y"}, "sm"), "axis", int64_t{1});
    std::vector<double> want(x.size());
    if (opset < 13) {
      for (int64_t row = 0; row < 2; ++row) {
        double sum = 0;
        for (int64_t i = 0; i < 60; ++i) sum += std::exp(x[row * 60 + i]);
        for (int64_t i = 0; i < 60; ++i) want[row * 60 + i] = std::exp(x[row * 60 + i]) / sum;
      }
    } else {
      for (int64_t nn = 0; nn < 2; ++nn) {
        for (int64_t inner = 0; inner < 20; ++inner) {
          double sum = 0;
          for (int64_t c = 0; c < 3; ++c) sum += std::exp(x[(nn * 3 + c) * 20 + inner]);
          for (int64_t c = 0; c < 3; ++c)
            want[(nn * 3 + c) * 20 + inner] = std::exp(x[(nn * 3 + c) * 20 + inner]) / sum;
        }
      }
    }
    SCOPED_TRACE("opset " + std::to_string(opset));
    expect_near_all(run_compiled(b, "x", x), want, 1e-5);
  }
}

// Gemm's alpha, beta and transA are normalized away (scaled constants, a Transpose node) and the
// result is alpha * A' B' + beta * C.
TEST(OpRegistry, GemmAlphaBetaAndTransposesAreNormalizedAndComputeWhatOnnxSays) {
  const int64_t M = 3, K = 4, N = 5;
  const std::vector<float> a = iota_floats(K * M, 1.0f), bw = iota_floats(N * K, 0.5f), c = iota_floats(N, 2.0f);
  OnnxModelBuilder b(9);
  b.input("a", {K, M}).output("y").floats("b", {N, K}, bw).floats("c", {N}, c);
  auto& g = b.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
  OnnxModelBuilder::attr(g, "transA", int64_t{1});
  OnnxModelBuilder::attr(g, "transB", int64_t{1});
  OnnxModelBuilder::float_attr(g, "alpha", 0.5f);
  OnnxModelBuilder::float_attr(g, "beta", 2.0f);
  const Graph imported = import_onnx_bytes(b.bytes(), "gemm.onnx");
  const Node& gemm = only(imported, "Gemm");
  EXPECT_EQ(gemm.attrs.size(), 1u);
  EXPECT_EQ(gemm.attr_int("transB", 0), 1);
  EXPECT_EQ(count_ops(imported).at("Transpose"), 1);

  std::vector<double> want(M * N);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += double(a[k * M + i]) * bw[j * K + k];
      want[i * N + j] = 0.5 * acc + 2.0 * c[j];
    }
  }
  expect_near_all(run_compiled(b, "a", a), want, 1e-5);
}

// A BatchNormalization no Conv precedes runs as one elementwise kernel; opset 7's spatial = 1 is
// the only form taken.
TEST(OpRegistry, BatchNormalizationOnItsOwnRunsAsAnElementwiseKernel) {
  const Shape shape = {2, 3, 2, 2};
  const std::vector<float> scale = {0.5f, 1.5f, -1.0f}, shift = {0.1f, -0.2f, 0.3f}, mean = {0.2f, -0.1f, 0.0f},
                           var = {1.0f, 0.25f, 2.0f};
  OnnxModelBuilder b(7);
  b.input("x", shape)
      .output("y")
      .floats("s", {3}, scale)
      .floats("bias", {3}, shift)
      .floats("m", {3}, mean)
      .floats("v", {3}, var);
  auto& bn = b.node("BatchNormalization", {"x", "s", "bias", "m", "v"}, {"y"}, "bn");
  OnnxModelBuilder::attr(bn, "spatial", int64_t{1});
  OnnxModelBuilder::float_attr(bn, "epsilon", 1e-3f);
  const std::vector<float> x = iota_floats(element_count(shape), 2.0f);
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t ch = (i / 4) % 3;
    want[i] = (x[i] - mean[ch]) / std::sqrt(double(var[ch]) + 1e-3) * scale[ch] + shift[ch];
  }
  expect_near_all(run_compiled(b, "x", x), want, 1e-5);

  OnnxModelBuilder per_pixel(7);
  per_pixel.input("x", shape)
      .output("y")
      .floats("s", {3}, scale)
      .floats("bias", {3}, shift)
      .floats("m", {3}, mean)
      .floats("v", {3}, var);
  OnnxModelBuilder::attr(per_pixel.node("BatchNormalization", {"x", "s", "bias", "m", "v"}, {"y"}, "bn"), "spatial",
                         int64_t{0});
  EXPECT_NE(
      import_error(per_pixel).find("node 'bn' (BatchNormalization, opset 7): attribute 'spatial' = 0 is not supported"),
      std::string::npos)
      << import_error(per_pixel);
}

TEST(OpRegistry, DropoutIsTheIdentityInInferenceAndRefusesTrainingByName) {
  OnnxModelBuilder old_dropout(7);
  old_dropout.input("x", {1, 4}).output("y");
  OnnxModelBuilder::float_attr(old_dropout.node("Dropout", {"x"}, {"d"}, "drop"), "ratio", 0.3f);
  old_dropout.node("Relu", {"d"}, {"y"}, "act");
  const Graph g = import_onnx_bytes(old_dropout.bytes(), "dropout.onnx");
  EXPECT_EQ(count_ops(g), (std::map<std::string, int>{{"Relu", 1}}));

  OnnxModelBuilder training(13);
  training.input("x", {1, 4}).output("y").floats("ratio", {}, {0.5f});
  training.node("Relu", {"x"}, {"r"}, "act");
  training.ints("on", {}, {1});  // bool in ONNX; read as int64 here
  training.node("Dropout", {"r", "ratio", "on"}, {"y"}, "drop");
  EXPECT_NE(import_error(training).find("node 'drop' (Dropout): input 'training_mode' = true is not supported"),
            std::string::npos)
      << import_error(training);

  OnnxModelBuilder mask(13);
  mask.input("x", {1, 4}).output("y");
  mask.output("m");
  mask.node("Dropout", {"x"}, {"y", "m"}, "drop");
  const Graph with_mask = import_onnx_bytes(mask.bytes(), "mask.onnx");
  const Tensor* m = with_mask.constant("m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->dtype, DType::Bool);
  EXPECT_EQ(m->i64, std::vector<int64_t>(4, 1));  // inference keeps every element
}

}  // namespace
}  // namespace tf::graph

namespace tf::graph {
namespace {

// A fused chain whose last node reads an earlier node's value second: w - x * y. The kernel's
// arguments must be the values its expression reads, in the order it numbers them.
TEST(OpRegistry, AFusedChainReadingAnEarlierValueSecondGetsItsArgumentsInOrder) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 8}).input("y", {2, 8}).input("w", {2, 8}).output("out");
  b.node("Mul", {"x", "y"}, {"m"}, "mul");
  b.node("Sub", {"w", "m"}, {"out"}, "sub");
  BuildOptions options;
  options.target = codegen::host_target();
  const Graph planned = plan_graph(import_onnx_bytes(b.bytes(), "chain.onnx"));
  EXPECT_EQ(count_ops(planned), (std::map<std::string, int>{{kFusedElementwise, 1}}));
  runtime::model::Executor exec(build_model(planned, options));
  const std::vector<float> x = iota_floats(16, 1.0f), y = iota_floats(16, 2.0f), w = iota_floats(16, 3.0f);
  std::vector<float> x2(16), y2(16), w2(16);
  for (int i = 0; i < 16; ++i) x2[i] = x[(i + 3) % 16], y2[i] = y[(i + 7) % 16] + 0.5f, w2[i] = w[(i + 5) % 16] - 1.0f;
  const auto got = exec.run_floats({{"x", x2}, {"y", y2}, {"w", w2}}).at("out");
  std::vector<double> want(16);
  for (int i = 0; i < 16; ++i) want[i] = double(w2[i]) - double(x2[i]) * y2[i];
  expect_near_all(got, want, 1e-6);
}

}  // namespace
}  // namespace tf::graph

// Whole models against ONNX Runtime: ResNet-18 (float and int8 QDQ), MobileNetV2, the BERT-base layer (float and int8
// QDQ) and 12-layer encoder, and the exported MobileNetV3, FPN, transformer and 1-D speech net (the test models) built
// with default configs, run by the model executor and by ONNX Runtime's CPU build (bench/ort/ort_run.js as a child
// process) on the same random .npy inputs; every output must agree to max|a-b|/max|b| <= 1e-3. Without node or
// bench/ort/node_modules the tests fail saying to run scripts/setup.sh: a peer check that silently skips checks
// nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "bench/ort_peer.h"
#include "compiler/codegen/target.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "runtime/model/timing.h"
#include "support/npy.h"

namespace tf {
namespace {

constexpr double kTolerance = 1e-3;

std::string work_dir(const std::string& model) {
  const std::string dir = ::testing::TempDir() + "/model_vs_ort_" + model + "_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `ort_graph_optimization`: "disabled" to compare with the model's nodes as ONNX defines them.
void expect_model_matches_ort(const std::string& model, const graph::ImportOptions& import = {},
                              double tolerance = kTolerance, const graph::PlanOptions& plan = {},
                              const std::string& ort_graph_optimization = "all") {
  const std::string problem = bench::ort_setup_problem();
  ASSERT_EQ(problem, "") << "ONNX Runtime is needed to check " << model;
  const std::string onnx = std::string(TF_MODELS_DIR) + "/" + model + ".onnx";
  const std::string dir = work_dir(model);

  const auto start = std::chrono::steady_clock::now();
  graph::BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor exec(
      graph::build_model(graph::plan_graph(graph::import_onnx_file(onnx, import), plan), options));
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const auto inputs = runtime::model::fill_random_inputs(exec);
  bench::OrtOptions ort;
  ort.model = onnx;
  ort.work_dir = dir + "/ort";
  ort.graph_optimization = ort_graph_optimization;
  for (const auto& in : exec.inputs()) {
    const std::string file = dir + "/input_" + std::to_string(ort.inputs.size()) + ".npy";
    write_npy(file, inputs.at(in.name));
    ort.inputs[in.name] = file;
  }
  const auto ours = exec.run(inputs);
  const bench::OrtResult theirs = bench::run_ort(ort);

  ASSERT_EQ(theirs.output_files.size(), exec.outputs().size()) << model;
  for (const auto& out : exec.outputs()) {
    ASSERT_TRUE(theirs.output_files.count(out.name)) << model << ": ONNX Runtime gives no output " << out.name;
    const HostTensor want = read_npy(theirs.output_files.at(out.name));
    ASSERT_EQ(want.shape, out.shape) << model << " output " << out.name;
    ASSERT_EQ(dtype_name(want.dtype), dtype_name(out.dtype)) << model << " output " << out.name;
    const double diff = bench::max_relative_difference(ours.at(out.name), want);
    std::printf("%s output %s: max|a-b|/max|b| = %.3g (built in %.1f s)\n", model.c_str(), out.name.c_str(), diff,
                build_s);
    EXPECT_LE(diff, tolerance) << model << " output " << out.name;
  }
  std::filesystem::remove_all(dir);
}

TEST(ModelVsOrt, ResNet18AgreesWithOnnxRuntime) { expect_model_matches_ort("resnet18"); }

TEST(ModelVsOrt, MobileNetV2AgreesWithOnnxRuntime) { expect_model_matches_ort("mobilenetv2"); }

TEST(ModelVsOrt, BertLayerAgreesWithOnnxRuntime) { expect_model_matches_ort("bert_layer"); }

// Twelve layers: the fused and packed kernels' rounding must not grow past the agreement through
// the stack (each LayerNorm rescales it).
TEST(ModelVsOrt, BertEncoder12AgreesWithOnnxRuntime) { expect_model_matches_ort("bert_encoder12"); }

// ResNet-18 in QDQ form: both runtimes run its convs on integers (here qconv2d_nchwc, fuse_qdq)
// and the rest between QuantizeLinear/DequantizeLinear pairs in float, requantizing after each
// layer; an activation on a rounding boundary may land one step away, and such steps add up
// through twenty requantizations to 0.7-1.5% of the largest logit. A wrong rounding mode, zero
// point or scale moves every activation of a layer, tens of percent.
TEST(ModelVsOrt, ResNet18QdqAgreesWithOnnxRuntimesInt8Kernels) { expect_model_matches_ort("resnet18_qdq", {}, 0.03); }

// MobileNetV2 in QDQ form: its pointwise convs run as qconv2d_nchwc, its depthwise ones as
// qdepthwise_nchwc, each ReLU6 as the saturation of its output's quantization (the calibrated
// range ends at 6), the residual Adds as one kernel over bytes each. Fifty-two requantizations of a
// random-weight network amplify a step taken anywhere: ONNX Runtime's own int8 run is 11% of the
// largest logit from its run of the nodes as ONNX defines them ("disabled": the quantization in
// float); tunefarm's float and integer runs are 4-5% from that reference, and 11% from ONNX
// Runtime's int8 (Zen 3). A wrong scale, zero point or rounding mode moves every activation of a
// layer, tens of percent.
TEST(ModelVsOrt, MobileNetV2QdqAgreesWithTheNodesAsOnnxDefinesThem) {
  expect_model_matches_ort("mobilenetv2_qdq", {}, 0.08, graph::PlanOptions{false}, "disabled");
  expect_model_matches_ort("mobilenetv2_qdq", {}, 0.08, graph::PlanOptions{}, "disabled");
  expect_model_matches_ort("mobilenetv2_qdq", {}, 0.15);
}

// The same model with its convs as QLinearConv nodes (ONNX Runtime runs those natively; tunefarm
// imports each as the QDQ group it computes and fuses it back into qconv2d).
TEST(ModelVsOrt, ResNet18QLinearAgreesWithOnnxRuntime) { expect_model_matches_ort("resnet18_qlinear", {}, 0.03); }

// The BERT-base layer in QDQ form: its six projections run on integers (qdense_packed), the
// attention, GELU and layer norms in float between them. Steps taken at one requantization move
// the next layer's sums, and spread through the seven (2.6% of the largest output apart on
// Zen 3, about as far as from tunefarm's own float run of the QDQ nodes, FuseQdq).
TEST(ModelVsOrt, BertLayerQdqAgreesWithOnnxRuntimesInt8Kernels) {
  expect_model_matches_ort("bert_layer_qdq", {}, 0.05);
}

// The exported models at scripts/make-models.py's BINDINGS: their symbolic extents bound as
// --input-shape binds them.
TEST(ModelVsOrt, FpnOpset11AgreesWithOnnxRuntime) {
  graph::ImportOptions o;
  o.input_shapes["image"] = {1, 3, 320, 256};
  expect_model_matches_ort("fpn_opset11", o);
}

TEST(ModelVsOrt, MobileNetV3Opset9AgreesWithOnnxRuntime) {
  graph::ImportOptions o;
  o.input_shapes["image"] = {1, 3, 224, 224};
  expect_model_matches_ort("mobilenetv3_opset9", o);
}

// Its position ids are a Slice to the sequence's extent, its embeddings Gathers of runtime ids.
TEST(ModelVsOrt, TransformerOpset13AgreesWithOnnxRuntime) {
  graph::ImportOptions o;
  o.input_shapes["input_ids"] = {1, 24};
  o.input_shapes["attention_mask"] = {1, 24};
  expect_model_matches_ort("transformer_opset13", o);
}

TEST(ModelVsOrt, SpeechConv1dOpset12AgreesWithOnnxRuntime) {
  graph::ImportOptions o;
  o.input_shapes["features"] = {1, 64, 201};
  expect_model_matches_ort("speech_conv1d_opset12", o);
}

}  // namespace
}  // namespace tf

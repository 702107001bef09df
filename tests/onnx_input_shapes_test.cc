// Binding a model's symbolic input extents at import (ImportOptions: --input-shape, --batch): the
// bound shapes reach every value and the tunable tasks; what stays symbolic, or a given shape that
// does not fit, is one error naming the input, the extent, both values and the flag that binds it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "compiler/error.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"
#include "tests/test_files.h"

namespace tf::graph {
namespace {

using testing_support::model_path;

using testing::error_of;
using testing::OnnxModelBuilder;

// image [N,3,H,W] -> 3x3 conv (pad 1) -> Relu: a detector's stem with its spatial extents left to the user.
OnnxModelBuilder stem(const std::vector<std::string>& dims = {"N", "3", "H", "W"}) {
  OnnxModelBuilder b(13);
  b.input_dims("image", dims).output("y").floats("w", {8, 3, 3, 3}, std::vector<float>(216, 0.1f));
  OnnxModelBuilder::attr(b.node("Conv", {"image", "w"}, {"c"}, "conv"), "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  return b;
}

ImportOptions shapes(std::map<std::string, Shape> m, std::optional<int64_t> batch = std::nullopt) {
  ImportOptions o;
  o.input_shapes = std::move(m);
  o.batch = batch;
  return o;
}

std::string bind_error(const OnnxModelBuilder& b, const ImportOptions& o = {}) {
  return error_of([&] { import_onnx_bytes(b.bytes(), "m.onnx", o); });
}

TEST(OnnxInputShapes, SymbolicHeightAndWidthAreBoundAndReachTheTasks) {
  const Graph g = import_onnx_bytes(stem().bytes(), "m.onnx", shapes({{"image", {2, 3, 64, 48}}}));
  EXPECT_EQ(g.value("image").shape, (Shape{2, 3, 64, 48}));
  EXPECT_EQ(g.value("y").shape, (Shape{2, 8, 64, 48}));
  // Another binding is another model: its kernels are other workloads.
  auto workloads = [](const Graph& graph) {
    std::set<std::string> out;
    for (const auto& t : tunable_tasks(plan_graph(graph, PlanOptions{false}))) out.insert(t.workload.str());
    return out;
  };
  const Graph small = import_onnx_bytes(stem().bytes(), "m.onnx", shapes({{"image", {2, 3, 32, 32}}}));
  EXPECT_EQ(small.value("y").shape, (Shape{2, 8, 32, 32}));
  EXPECT_NE(workloads(g), workloads(small));
}

TEST(OnnxInputShapes, WhatStaysSymbolicIsNamedWithTheFlagThatBindsIt) {
  std::string e = bind_error(stem());
  EXPECT_NE(
      e.find(
          "m.onnx: input 'image' [N,3,H,W]: extents 2 ('H') and 3 ('W') are symbolic; bind them with --input-shape image=1,3,H,W"),
      std::string::npos)
      << e;
  e = bind_error(stem({"N", "3", "H", "32"}), shapes({}, 4));
  EXPECT_NE(e.find("input 'image' [N,3,H,32]: extent 2 ('H') is symbolic; bind it with --input-shape image=4,3,H,32"),
            std::string::npos)
      << e;
  e = bind_error(stem({"N", "3", "", "32"}));
  EXPECT_NE(e.find("[N,3,?,32]: extent 2 (unnamed) is symbolic; bind it with --input-shape image=1,3,?,32"),
            std::string::npos)
      << e;
  // The batch alone still needs nothing: extent 0 is 1, or --batch.
  EXPECT_EQ(import_onnx_bytes(stem({"N", "3", "8", "8"}).bytes(), "m.onnx", shapes({}, 3)).value("y").shape,
            (Shape{3, 8, 8, 8}));
}

TEST(OnnxInputShapes, AGivenShapeMustFitTheModel) {
  std::string e = bind_error(stem(), shapes({{"image", {1, 4, 8, 8}}}));
  EXPECT_NE(e.find("input 'image' [N,3,H,W]: extent 1 is 3 in the model, --input-shape image=1,4,8,8 gives 4"),
            std::string::npos)
      << e;
  e = bind_error(stem(), shapes({{"image", {1, 3, 8}}}));
  EXPECT_NE(e.find("input 'image' [N,3,H,W]: --input-shape image=1,3,8 has 3 extents, the model declares 4"),
            std::string::npos)
      << e;
  e = bind_error(stem(), shapes({{"picture", {1, 3, 8, 8}}}));
  EXPECT_NE(e.find("m.onnx: --input-shape names 'picture', which is not an input of the model (its inputs: 'image')"),
            std::string::npos)
      << e;
  // A weight listed among the graph's inputs (IR version 3) is not an input to bind.
  OnnxModelBuilder weight_listed = stem();
  weight_listed.input("w", {8, 3, 3, 3});
  EXPECT_EQ(import_onnx_bytes(weight_listed.bytes(), "m.onnx", shapes({{"image", {1, 3, 8, 8}}})).inputs,
            (std::vector<std::string>{"image"}));
  e = bind_error(weight_listed, shapes({{"w", {8, 3, 3, 3}}}));
  EXPECT_NE(e.find("--input-shape names 'w', which is not an input"), std::string::npos) << e;
  e = bind_error(stem(), shapes({{"image", {2, 3, 8, 8}}}, 4));
  EXPECT_NE(e.find("input 'image' [N,3,H,W]: --batch 4 and --input-shape image=2,3,8,8 disagree on extent 0 ('N')"),
            std::string::npos)
      << e;
  e = bind_error(stem(), shapes({{"image", {1, 3, 0, 8}}}));
  EXPECT_NE(e.find("--input-shape image=1,3,0,8: extent 2 must be positive"), std::string::npos) << e;
  e = bind_error(stem(), shapes({{"image", {}}}));
  EXPECT_NE(e.find("--input-shape image= gives no extents"), std::string::npos) << e;
  // Extents whose product overflows every integer type: refused by count, never wrapped around.
  e = bind_error(stem(), shapes({{"image", {1, 3, int64_t{1} << 62, int64_t{1} << 62}}}));
  EXPECT_NE(e.find("m.onnx: input 'image': 6.38029e+37 elements is too many"), std::string::npos) << e;
  EXPECT_NE(bind_error(stem(), shapes({}, 0)).find("batch 0 must be positive"), std::string::npos);
}

// input_ids and attention_mask share [batch, sequence]: binding one binds the other, as ONNX means
// a symbolic name; two bindings of one name that differ are refused.
TEST(OnnxInputShapes, ASymbolicNameBoundOnceBindsItInEveryInput) {
  OnnxModelBuilder b(13);
  b.input_dims("ids", {"batch", "sequence"}).input_dims("mask", {"batch", "sequence"}).output("y");
  b.node("Add", {"ids", "mask"}, {"y"}, "add");
  const Graph g = import_onnx_bytes(b.bytes(), "m.onnx", shapes({{"ids", {2, 16}}}));
  EXPECT_EQ(g.value("mask").shape, (Shape{2, 16}));
  EXPECT_EQ(g.value("y").shape, (Shape{2, 16}));
  const std::string e = bind_error(b, shapes({{"ids", {1, 16}}, {"mask", {1, 8}}}));
  EXPECT_NE(
      e.find(
          "input 'mask' [batch,sequence]: extent 1 ('sequence') is given as 8, but --input-shape binds 'sequence' to 16 at "
          "extent 1 of input 'ids'"),
      std::string::npos)
      << e;
  // Without any binding the batch is 1 and the sequence is named for each input.
  EXPECT_NE(
      bind_error(b).find(
          "input 'ids' [batch,sequence]: extent 1 ('sequence') is symbolic; bind it with --input-shape ids=1,sequence"),
      std::string::npos);
}

// A name holding '=' or bytes beyond ASCII is a name like any other.
TEST(OnnxInputShapes, NamesAreTakenAsTheModelWritesThem) {
  OnnxModelBuilder b(13);
  b.input_dims("x=y", {"N", "S"}).output("out");
  b.node("Relu", {"x=y"}, {"out"}, "relu");
  EXPECT_EQ(import_onnx_bytes(b.bytes(), "m.onnx", shapes({{"x=y", {1, 5}}})).value("out").shape, (Shape{1, 5}));
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "tf-input-shapes-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(OnnxInputShapes, TheSummaryListsSymbolicExtentsAndTheirBinding) {
  const std::string path = write_temp("stem.onnx", stem().bytes());
  OnnxSummary s = summarize_onnx_file(path);
  ASSERT_EQ(s.inputs.size(), 1u);
  ASSERT_EQ(s.inputs[0].symbolic.size(), 3u);
  EXPECT_EQ(s.inputs[0].symbolic[1].index, 2);
  EXPECT_EQ(s.inputs[0].symbolic[1].name, "H");
  EXPECT_TRUE(s.inputs[0].bound.empty());
  EXPECT_NE(s.binding_error.find("bind them with --input-shape image=1,3,H,W"), std::string::npos) << s.binding_error;
  s = summarize_onnx_file(path, shapes({{"image", {1, 3, 20, 24}}}));
  EXPECT_EQ(s.inputs[0].bound, (Shape{1, 3, 20, 24}));
  EXPECT_TRUE(s.binding_error.empty()) << s.binding_error;
  // A shape that does not fit is the caller's error, not a listing.
  EXPECT_NE(error_of([&] {
              summarize_onnx_file(path, shapes({{"image", {1, 1, 20, 24}}}));
            }).find("extent 1 is 3 in the model"),
            std::string::npos);
  std::remove(path.c_str());
}

// The exported models of scripts/make-models.py: their symbolic extents as the exporters left them.
TEST(OnnxInputShapes, ExportedModelsDeclareTheirSymbolicExtents) {
  OnnxSummary fpn = summarize_onnx_file(model_path("fpn_opset11"), shapes({{"image", {1, 3, 320, 256}}}));
  ASSERT_EQ(fpn.inputs.size(), 1u);
  EXPECT_EQ(fpn.inputs[0].shape, "[N,3,H,W]");
  ASSERT_EQ(fpn.inputs[0].symbolic.size(), 3u);
  EXPECT_EQ(fpn.inputs[0].symbolic[2].name, "W");
  EXPECT_EQ(fpn.inputs[0].bound, (Shape{1, 3, 320, 256}));

  OnnxSummary bert = summarize_onnx_file(model_path("transformer_opset13"), shapes({{"input_ids", {2, 24}}}));
  ASSERT_EQ(bert.inputs.size(), 2u);
  EXPECT_EQ(bert.inputs[1].name, "attention_mask");
  EXPECT_EQ(bert.inputs[1].bound, (Shape{2, 24}));

  OnnxSummary speech = summarize_onnx_file(model_path("speech_conv1d_opset12"));
  EXPECT_NE(speech.binding_error.find(
                "input 'features' [N,64,T]: extent 2 ('T') is symbolic; bind it with --input-shape features=1,64,T"),
            std::string::npos)
      << speech.binding_error;

  // The opset-9 model lists its weights among the graph inputs: they are not inputs to bind.
  if constexpr (kMinOpset <= 9) {
    OnnxSummary mobilenet = summarize_onnx_file(model_path("mobilenetv3_opset9"));
    ASSERT_EQ(mobilenet.inputs.size(), 1u);
    EXPECT_EQ(mobilenet.inputs[0].bound, (Shape{1, 3, 224, 224}));
  }
}

}  // namespace
}  // namespace tf::graph

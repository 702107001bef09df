// A graph as text (graph/graph_text.h), and plan_graph's observer: what `tunefarm model inspect
// --dump-after` prints after each graph pass.
#include <gtest/gtest.h>

#include "graph/graph_text.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "tests/graph_builders.h"
#include "tests/test_files.h"

namespace tf::graph {
namespace {

using testing::add_constant;
using testing::node;

TEST(GraphText, ShowsTypesWhereDefinedConstantsWhereReadAndAttributes) {
  Graph g;
  g.set_value(Value{"x", DType::Float32, {1, 4}, nullptr});
  g.set_value(Value{"y", DType::Float32, {1, 4}, nullptr});
  g.set_value(Value{"z", DType::Float32, {1, 4}, nullptr});
  add_constant(g, "scale", Tensor::floats({2}, {0.5f, 2}));
  add_constant(g, "table", Tensor::floats({3, 3}, std::vector<float>(9, 1)));
  g.inputs = {"x"};
  Node clip = node("Clip", {"x", "", "scale"}, {"y"});
  clip.attrs["mode"] = std::string("fast");
  clip.attrs["axes"] = std::vector<int64_t>(20, 1);
  clip.attrs["alpha"] = 0.25;
  g.nodes = {clip, node("Mul", {"y", "table"}, {"z"})};
  g.outputs = {"z"};
  EXPECT_EQ(to_text(g),
            "inputs: x float32[1,4]\n"
            "y float32[1,4] = Clip(x, _, const scale float32[2] [0.5,2]) "
            "{alpha=0.25, axes=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,... (20)], mode=\"fast\"}  // Clip_y\n"
            "z float32[1,4] = Mul(y, const table float32[3,3])  // Mul_z\n"
            "outputs: z\n");
}

TEST(GraphText, IndentsAFusedNodesBody) {
  auto body = std::make_shared<Graph>();
  body->set_value(Value{"a", DType::Float32, {4}, nullptr});
  body->set_value(Value{"b", DType::Float32, {4}, nullptr});
  body->inputs = {"a"};
  body->nodes = {node("Relu", {"a"}, {"b"})};
  body->outputs = {"b"};
  Graph g;
  g.set_value(Value{"x", DType::Float32, {4}, nullptr});
  g.set_value(Value{"y", DType::Float32, {4}, nullptr});
  g.inputs = {"x"};
  Node fused = node(kFusedElementwise, {"x"}, {"y"});
  fused.body = body;
  g.nodes = {fused};
  g.outputs = {"y"};
  EXPECT_EQ(to_text(g),
            "inputs: x float32[4]\n"
            "y float32[4] = fused_elementwise(x)  // fused_elementwise_y\n"
            "    inputs: a float32[4]\n"
            "    b float32[4] = Relu(a)  // Relu_b\n"
            "    outputs: b\n"
            "outputs: y\n");
}

TEST(GraphPipeline, TheObserverSeesEveryPassInOrderAndTheGraphItLeft) {
  const Graph imported = import_onnx_file(testing_support::small_cnn());
  std::vector<std::string> passes;
  std::vector<std::string> texts;
  const Graph planned = plan_graph(imported, PlanOptions{}, [&](const std::string& pass, const Graph& g) {
    passes.push_back(pass);
    texts.push_back(to_text(g));
  });
  // Every pass, in order (fold_constants twice: before fuse_qdq, keeping int8 weights, and after).
  EXPECT_EQ(passes, (std::vector<std::string>{"fold_constants", "fuse_qdq", "fold_constants", "lift_unit_height",
                                              "fold_batchnorm", "fuse_layer_norm", "fuse_attention", "fuse_epilogues",
                                              "fuse_elementwise", "fuse_dense_activation", "pack_dense_weights",
                                              "plan_layouts"}));
  ASSERT_FALSE(texts.empty());
  EXPECT_EQ(texts.back(), to_text(planned));
  // fold_batchnorm (the fifth pass) folds the model's BatchNormalizations into its convolutions.
  ASSERT_EQ(passes[4], "fold_batchnorm");
  EXPECT_NE(texts[3].find("= BatchNormalization("), std::string::npos) << texts[3];
  EXPECT_EQ(texts[4].find("= BatchNormalization("), std::string::npos) << texts[4];
}

}  // namespace
}  // namespace tf::graph

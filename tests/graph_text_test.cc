// A graph as text (graph/graph_text.h), and plan_graph's observer: what `tunefarm model inspect
// --dump-after` prints after each graph pass.
#include <gtest/gtest.h>

#include "graph/graph_text.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "tests/test_files.h"

namespace tf::graph {
namespace {

Value constant_value(const std::string& name, Tensor t) {
  Value v{name, t.dtype, t.shape, nullptr};
  v.data = std::make_shared<const Tensor>(std::move(t));
  return v;
}

Node text_test_node(const std::string& name, const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

TEST(GraphText, ShowsTypesWhereDefinedConstantsWhereReadAndAttributes) {
  Graph g;
  g.set_value(Value{"x", DType::Float32, {1, 4}, nullptr});
  g.set_value(Value{"y", DType::Float32, {1, 4}, nullptr});
  g.set_value(Value{"z", DType::Float32, {1, 4}, nullptr});
  g.set_value(constant_value("scale", Tensor::floats({2}, {0.5f, 2})));
  g.set_value(constant_value("table", Tensor::floats({3, 3}, std::vector<float>(9, 1))));
  g.inputs = {"x"};
  Node clip = text_test_node("Clip_0", "Clip", {"x", "", "scale"}, {"y"});
  clip.attrs["mode"] = std::string("fast");
  clip.attrs["axes"] = std::vector<int64_t>(20, 1);
  clip.attrs["alpha"] = 0.25;
  g.nodes = {clip, text_test_node("Mul_0", "Mul", {"y", "table"}, {"z"})};
  g.outputs = {"z"};
  EXPECT_EQ(to_text(g),
            "inputs: x float32[1,4]\n"
            "y float32[1,4] = Clip(x, _, const scale float32[2] [0.5,2]) "
            "{alpha=0.25, axes=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,... (20)], mode=\"fast\"}  // Clip_0\n"
            "z float32[1,4] = Mul(y, const table float32[3,3])  // Mul_0\n"
            "outputs: z\n");
}

TEST(GraphText, IndentsAFusedNodesBody) {
  auto body = std::make_shared<Graph>();
  body->set_value(Value{"a", DType::Float32, {4}, nullptr});
  body->set_value(Value{"b", DType::Float32, {4}, nullptr});
  body->inputs = {"a"};
  body->nodes = {text_test_node("Relu_0", "Relu", {"a"}, {"b"})};
  body->outputs = {"b"};
  Graph g;
  g.set_value(Value{"x", DType::Float32, {4}, nullptr});
  g.set_value(Value{"y", DType::Float32, {4}, nullptr});
  g.inputs = {"x"};
  Node fused = text_test_node("fused_0", kFusedElementwise, {"x"}, {"y"});
  fused.body = body;
  g.nodes = {fused};
  g.outputs = {"y"};
  EXPECT_EQ(to_text(g),
            "inputs: x float32[4]\n"
            "y float32[4] = fused_elementwise(x)  // fused_0\n"
            "    inputs: a float32[4]\n"
            "    b float32[4] = Relu(a)  // Relu_0\n"
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
  EXPECT_EQ(passes, pipeline_pass_names());
  ASSERT_FALSE(texts.empty());
  EXPECT_EQ(texts.back(), to_text(planned));
  // fold_batchnorm (the third pass) folds the model's BatchNormalizations into its convolutions.
  ASSERT_EQ(passes[2], "fold_batchnorm");
  EXPECT_NE(texts[1].find("= BatchNormalization("), std::string::npos) << texts[1];
  EXPECT_EQ(texts[2].find("= BatchNormalization("), std::string::npos) << texts[2];
}

}  // namespace
}  // namespace tf::graph

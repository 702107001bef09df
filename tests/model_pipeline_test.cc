// The whole pipeline on the generated models: planning (batch norm folded, epilogues and elementwise
// chains fused) leaves a model's outputs as the imported graph computes them, per the test-only
// evaluator on the same random inputs.
#include <gtest/gtest.h>

#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "tests/graph_evaluator.h"

namespace tf::graph {
namespace {

double planning_difference(const std::string& model) {
  const Graph imported = import_onnx_file(std::string(TF_MODELS_DIR) + "/" + model + ".onnx");
  const Graph planned = plan_graph(imported, PlanOptions{false});
  EXPECT_LT(planned.nodes.size(), imported.nodes.size());
  testing::Values inputs;
  uint32_t seed = 1;
  for (const auto& name : imported.inputs) inputs[name] = testing::random_tensor(imported.value(name).shape, seed++);
  const auto before = testing::Evaluator(imported).run(inputs);
  const auto after = testing::Evaluator(planned).run(inputs);
  double worst = 0;
  for (const auto& [name, t] : before) {
    EXPECT_EQ(after.at(name).shape, t.shape) << name;
    worst = std::max(worst, testing::max_relative_difference(after.at(name), t));
  }
  return worst;
}

TEST(ModelPipeline, PlanningMobileNetV2LeavesItsOutputsAsTheyWere) {
  EXPECT_LT(planning_difference("mobilenetv2"), 1e-4);
}

TEST(ModelPipeline, PlanningTheBertLayerLeavesItsOutputsAsTheyWere) {
  EXPECT_LT(planning_difference("bert_layer"), 1e-4);
}

}  // namespace
}  // namespace tf::graph

// `tunefarm model inspect` as a user runs it: the generated models, plain and --json, a model with
// unsupported nodes, files that are not models.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "compiler/codegen/target.h"
#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/onnx_model_builder.h"
#include "tests/test_files.h"

namespace {

using tf::testing_support::model_path;

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = testing::TempDir() + "tf-model-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(ModelCli, InspectShowsNodesAndTunableTasks) {
  Result r = run_cli("model inspect " + model_path("resnet18"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("opset 13"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("input                    float32  [N,3,224,224]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nodes (69): Add 8, BatchNormalization 20, Conv 20"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tunable tasks (28, 3.63 GFLOP per run;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conv2d_nchwc_bias_add_relu          n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1,ib=16,ob=16 "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("conv2d_winograd_nchwc_bias_add_relu n=1,c=64,h=56,w=56,k=64,r=3,s=3,pad=1,ib=16,ob=16,m=4 "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("unsupported"), std::string::npos) << r.out;
}

TEST(ModelCli, InspectJsonTasksAreWorkloadsTheOtherCommandsTake) {
  Result r = run_cli("model inspect " + model_path("bert_layer") + " --json --batch 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const tf::Json j = tf::parse_json(r.out);
  EXPECT_EQ(j.at("opset"), 17);
  EXPECT_EQ(j.at("batch"), 2);
  EXPECT_EQ(j.at("inputs").size(), 2u);
  EXPECT_EQ(j.at("inputs")[0].at("shape"), "[N,128,768]");
  EXPECT_EQ(j.at("nodes").at("MatMul"), 8);
  // q, k, v; the output projection and the FFN's second layer with their residual; the FFN's first with GELU.
  EXPECT_EQ(j.at("planned_nodes").at("dense_packed_bias"), 3);
  EXPECT_EQ(j.at("planned_nodes").at("dense_packed_bias_add"), 2);
  EXPECT_EQ(j.at("planned_nodes").at("dense_packed_bias_gelu"), 1);
  EXPECT_TRUE(j.at("unsupported").empty());
  const auto& tasks = j.at("tasks");
  ASSERT_EQ(tasks.size(), 5u);
  double share = 0;
  for (const auto& t : tasks) share += t.at("share").get<double>();
  EXPECT_NEAR(share, 1.0, 1e-9);
  // At batch 2 the dense rows double; attention is one kernel over both sequences and all heads.
  // Its weight panels are two of this host's vectors wide.
  const int64_t panel = 2 * tf::codegen::host_target().float32_lanes();
  EXPECT_EQ(tasks[2].at("workload"), "dense_packed_bias[256,768,768," + std::to_string(panel) + "]");
  EXPECT_EQ(tasks[2].at("count"), 3);
  EXPECT_EQ(tasks[4].at("workload"), "attention_masked[2,128,128,12,64,125000000]");
  EXPECT_EQ(tasks[4].at("count"), 1);
  // Each task's shape text is what `tunefarm space/run --shape` take.
  for (const auto& t : tasks) {
    Result space = run_cli("space --op " + t.at("op").get<std::string>() + " --shape " +
                           t.at("shape").get<std::string>() + " --json");
    ASSERT_EQ(space.exit_code, 0) << space.err;
    EXPECT_EQ(tf::parse_json(space.out).at("workload"), t.at("workload"));
  }
}

TEST(ModelCli, InspectListsUnsupportedNodesAndFails) {
  tf::graph::testing::OnnxModelBuilder b(13);
  b.input("x", {-1, 16}).output("y");
  b.node("Relu", {"x"}, {"r"}, "act");
  b.node("Det", {"r"}, {"y"}, "pick");
  const std::string path = write_temp("unsupported.onnx", b.bytes());
  Result r = run_cli("model inspect " + path);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("nodes (2): Det 1, Relu 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unsupported nodes (1):\n  node 'pick' (Det, opset 13): op Det is not supported"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("tunable tasks"), std::string::npos) << r.out;
  Result j = run_cli("model inspect " + path + " --json");
  EXPECT_EQ(j.exit_code, 1);
  const tf::Json out = tf::parse_json(j.out);
  ASSERT_EQ(out.at("unsupported").size(), 1u);
  EXPECT_TRUE(out.at("planned_nodes").is_null());
  std::remove(path.c_str());
}

TEST(ModelCli, FilesThatAreNotModelsAreOneLineErrors) {
  const std::string garbage = write_temp("garbage.onnx", std::string("\x12\x34 this is not a model \xff\xfe", 26));
  for (const std::string& file : {garbage, std::string("/nonexistent/model.onnx")}) {
    Result r = run_cli("model inspect " + file);
    EXPECT_EQ(r.exit_code, 2) << file << r.out;
    EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  Result batch = run_cli("model inspect " + model_path("resnet18") + " --batch 0");
  EXPECT_EQ(batch.exit_code, 2);
  std::remove(garbage.c_str());
}

}  // namespace

// HannWindow, HammingWindow and BlackmanWindow (opset 17), folded when the model is built: the
// compiled model returns the window as a constant output. Checked against the sums of cosines
// ONNX defines, periodic and symmetric; a size the build cannot know is refused by name.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;

std::vector<double> cosines(int64_t size, bool periodic, double a0, double a1, double a2) {
  const double n = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w;
  for (int64_t i = 0; i < size; ++i)
    w.push_back(a0 - a1 * std::cos(2 * M_PI * i / n) + a2 * std::cos(4 * M_PI * i / n));
  return w;
}

TEST(OnnxWindowFunctions, WindowsAreTheSumsOfCosinesOnnxDefines) {
  OnnxModelBuilder b(17);
  b.ints("size", {}, {10}).input("x", {10});
  const char* ops[] = {"HannWindow", "HammingWindow", "BlackmanWindow"};
  for (const char* op : ops) {
    for (int periodic = 0; periodic < 2; ++periodic) {
      const std::string out = std::string(op) + (periodic ? "_periodic" : "_symmetric");
      OnnxModelBuilder::attr(b.node(op, {"size"}, {out + "_w"}), "periodic", int64_t{periodic});
      b.node("Mul", {"x", out + "_w"}, {out});  // a kernel beside the folded window
      b.output(out);
    }
  }
  const auto got = testing::run_floats(b, {{"x", std::vector<float>(10, 2.0f)}});
  const double coefficients[][3] = {{0.5, 0.5, 0}, {25.0 / 46, 21.0 / 46, 0}, {0.42, 0.5, 0.08}};
  for (int k = 0; k < 3; ++k) {
    for (int periodic = 0; periodic < 2; ++periodic) {
      const std::string out = std::string(ops[k]) + (periodic ? "_periodic" : "_symmetric");
      SCOPED_TRACE(out);
      std::vector<double> want = cosines(10, periodic, coefficients[k][0], coefficients[k][1], coefficients[k][2]);
      for (double& v : want) v *= 2;
      testing::expect_near_all(got.at(out), want, 1e-6);
    }
  }
}

TEST(OnnxWindowFunctions, AWindowIsAConstantOutputOfTheModel) {
  OnnxModelBuilder b(17);
  b.ints("size", {}, {4}).output("w");
  b.node("HannWindow", {"size"}, {"w"});
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const auto out = exec.run({});
  testing::expect_near_all(out.at("w").as_floats(), {0, 0.5, 1, 0.5}, 1e-7);
}

TEST(OnnxWindowFunctions, AComputedSizeOrAnotherOutputTypeIsRefusedByName) {
  {
    OnnxModelBuilder b(17);
    b.input("size", {}, onnx::TensorProto::INT64).output("w");
    b.node("HammingWindow", {"size"}, {"w"}, "ham");
    const std::string why = testing::import_error(b);
    EXPECT_NE(why.find("node 'ham' (HammingWindow): input 'size' must be a constant"), std::string::npos) << why;
  }
  {
    OnnxModelBuilder b(17);
    b.ints("size", {}, {4}).output("w");
    OnnxModelBuilder::attr(b.node("BlackmanWindow", {"size"}, {"w"}, "black"), "output_datatype",
                           int64_t{onnx::TensorProto::DOUBLE});
    const std::string why = testing::import_error(b);
    EXPECT_NE(why.find("attribute 'output_datatype' = 11 (DOUBLE) is not supported (FLOAT only)"), std::string::npos)
        << why;
  }
}

}  // namespace
}  // namespace tf::graph

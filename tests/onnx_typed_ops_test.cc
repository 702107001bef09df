// ONNX ops whose values are not all float32, through the op registry as a model takes them:
// comparisons and logic into bool outputs, Where selecting by a bool, Cast between float32, int64,
// int32 and bool, IsNaN, ArgMax (float32-index kernel, then a Cast to int64), and a float
// activation beside them. Each model is built twice: with runtime inputs (every node a typed
// kernel) and with the same inputs as initializers (every node folded, the outputs constants the
// compiled model returns). Both must give what ONNX defines.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using runtime::model::HostTensors;
using testing::OnnxModelBuilder;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const std::vector<float> kX = {-2.5f, 0.5f, 3.0f, 1.75f, -0.25f, 7.9f};
const std::vector<float> kY = {-3.0f, 0.5f, kNaN, 2.0f, -1.0f, 8.0f};
const std::vector<int64_t> kIds = {5, -7, 0, int64_t{1} << 40, 3, -1};
const std::vector<bool> kMask = {true, false, true, false, true, true};

// x, y float [2,3]; ids int64 [2,3]; mask bool [2,3]: as graph inputs, or as initializers.
OnnxModelBuilder typed_model(bool constants) {
  OnnxModelBuilder b(13);
  if (constants) {
    b.floats("x", {2, 3}, kX).floats("y", {2, 3}, kY).ints("ids", {2, 3}, kIds);
    auto& m = b.initializer("mask", onnx::TensorProto::BOOL, {2, 3});
    for (bool v : kMask) m.add_int32_data(v);
  } else {
    b.input("x", {2, 3})
        .input("y", {2, 3})
        .input("ids", {2, 3}, onnx::TensorProto::INT64)
        .input("mask", {2, 3}, onnx::TensorProto::BOOL);
  }
  b.node("Greater", {"x", "y"}, {"above"});
  b.node("Where", {"mask", "x", "y"}, {"picked"});
  OnnxModelBuilder::attr(b.node("Cast", {"ids"}, {"ids_f"}), "to", int64_t{onnx::TensorProto::FLOAT});
  OnnxModelBuilder::attr(b.node("Cast", {"x"}, {"x_i32"}), "to", int64_t{onnx::TensorProto::INT32});
  OnnxModelBuilder::attr(b.node("Cast", {"x"}, {"x_bool"}), "to", int64_t{onnx::TensorProto::BOOL});
  b.node("And", {"above", "mask"}, {"both"});
  b.node("Not", {"mask"}, {"unmasked"});
  b.node("IsNaN", {"y"}, {"y_nan"});
  auto& am = b.node("ArgMax", {"x"}, {"x_argmax"});
  OnnxModelBuilder::attr(am, "axis", int64_t{1});
  OnnxModelBuilder::attr(am, "keepdims", int64_t{0});
  OnnxModelBuilder::float_attr(b.node("LeakyRelu", {"x"}, {"leaky"}), "alpha", 0.1f);
  for (const char* out :
       {"above", "picked", "ids_f", "x_i32", "x_bool", "both", "unmasked", "y_nan", "x_argmax", "leaky"})
    b.output(out);
  return b;
}

HostTensors run(const OnnxModelBuilder& b, bool constants) {
  runtime::model::Executor exec(testing::build_with_defaults(b));
  HostTensors feeds;
  if (!constants) {
    feeds["x"] = HostTensor::floats({2, 3}, kX);
    feeds["y"] = HostTensor::floats({2, 3}, kY);
    feeds["ids"] = HostTensor::int64s({2, 3}, kIds);
    feeds["mask"] = HostTensor::bools({2, 3}, kMask);
  }
  return exec.run(feeds);
}

void expect_values(const HostTensors& out, const std::string& name, DType dtype, const std::vector<double>& want) {
  SCOPED_TRACE(name);
  ASSERT_EQ(out.count(name), 1u);
  const HostTensor& t = out.at(name);
  EXPECT_EQ(t.dtype, dtype);
  ASSERT_EQ(t.elements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(t.at(static_cast<int64_t>(i)))) << i;
    else
      EXPECT_EQ(t.at(static_cast<int64_t>(i)), want[i]) << i;
  }
}

void expect_onnx_semantics(const HostTensors& out) {
  std::vector<double> above, picked, ids_f, x_i32, x_bool, both, unmasked, y_nan, leaky;
  for (size_t i = 0; i < kX.size(); ++i) {
    above.push_back(kX[i] > kY[i]);  // false beside NaN
    picked.push_back(kMask[i] ? kX[i] : kY[i]);
    ids_f.push_back(static_cast<float>(kIds[i]));
    x_i32.push_back(std::trunc(kX[i]));  // toward zero: -2.5 -> -2
    x_bool.push_back(kX[i] != 0);
    both.push_back(kX[i] > kY[i] && kMask[i]);
    unmasked.push_back(!kMask[i]);
    y_nan.push_back(std::isnan(kY[i]));
    leaky.push_back(kX[i] < 0 ? kX[i] * 0.1f : kX[i]);
  }
  expect_values(out, "above", DType::Bool, above);
  expect_values(out, "picked", DType::Float32, picked);
  expect_values(out, "ids_f", DType::Float32, ids_f);
  expect_values(out, "x_i32", DType::Int32, x_i32);
  expect_values(out, "x_bool", DType::Bool, x_bool);
  expect_values(out, "both", DType::Bool, both);
  expect_values(out, "unmasked", DType::Bool, unmasked);
  expect_values(out, "y_nan", DType::Bool, y_nan);
  expect_values(out, "x_argmax", DType::Int64, {2, 2});
  ASSERT_EQ(out.count("leaky"), 1u);
  const std::vector<float> got = out.at("leaky").as_floats();
  for (size_t i = 0; i < leaky.size(); ++i) EXPECT_NEAR(got[i], leaky[i], 1e-6 * std::fabs(leaky[i])) << i;
}

TEST(OnnxTypedOps, KernelsComputeWhatOnnxDefines) { expect_onnx_semantics(run(typed_model(false), false)); }

TEST(OnnxTypedOps, FoldedConstantsAgreeAndAreTheModelsOutputs) { expect_onnx_semantics(run(typed_model(true), true)); }

TEST(OnnxTypedOps, AFloatOnlyKernelRefusesAnotherDtypeNamingTheInput) {
  OnnxModelBuilder b(13);
  b.input("ids", {4}, onnx::TensorProto::INT64).output("s");
  b.node("Sigmoid", {"ids"}, {"s"}, "sig");
  const std::string why = testing::build_error(b);
  EXPECT_NE(why.find("node 'sig' (Sigmoid): input 0 ('ids') is int64; Sigmoid's kernel does not take it"),
            std::string::npos)
      << why;
}

TEST(OnnxTypedOps, CastToAnUnsupportedTypeIsRefusedByName) {
  OnnxModelBuilder b(13);
  b.input("x", {4}).output("d");
  OnnxModelBuilder::attr(b.node("Cast", {"x"}, {"d"}, "to_half"), "to", int64_t{onnx::TensorProto::FLOAT16});
  const std::string why = testing::import_error(b);
  EXPECT_NE(why.find("attribute 'to' = FLOAT16 is not supported (float32, float64, int64, int32, int8, uint8, bool)"),
            std::string::npos)
      << why;
}

}  // namespace
}  // namespace tf::graph

// Op versions before 7 as PyTorch's old exporter wrote them (opset 6 and 1): the broadcast/axis
// attributes of Add, Sub, Mul, Div and Pow, Gemm's broadcast of C, PRelu's per-channel slope,
// BatchNormalization's is_test, consumed_inputs (a memory hint that changes no value), Selu's
// older defaults, and Dropout with is_test. Each model is imported, built and run with compiled
// kernels and checked against ONNX's definition of that version; what a version defines otherwise
// (training, broadcasting without broadcast=1) is refused by name.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;

std::vector<float> iota(size_t count, float start, float step) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << text;
}

TEST(OnnxLegacyOps, OldBroadcastAlignsTheSecondOperandAtAxis) {
  OnnxModelBuilder b(6);
  b.input("a", {2, 3, 4}).input("b", {3}).floats("w", {4}, {1, 2, 3, 4}).output("sum").output("product");
  auto& add = b.node("Add", {"a", "b"}, {"sum"});
  OnnxModelBuilder::attr(add, "broadcast", int64_t{1});
  OnnxModelBuilder::attr(add, "axis", int64_t{1});
  OnnxModelBuilder::attr(b.node("Mul", {"a", "w"}, {"product"}), "broadcast", int64_t{1});  // suffix: the last axis
  const std::vector<float> a = iota(24, -5, 0.5f), bias = {10, 20, 30};
  const auto out = testing::run_floats(b, {{"a", a}, {"b", bias}});
  std::vector<double> sum, product;
  for (size_t i = 0; i < 24; ++i) {
    sum.push_back(a[i] + bias[(i / 4) % 3]);
    product.push_back(a[i] * static_cast<float>(i % 4 + 1));
  }
  testing::expect_near_all(out.at("sum"), sum, 1e-6);
  testing::expect_near_all(out.at("product"), product, 1e-6);
}

TEST(OnnxLegacyOps, OldBroadcastOfAComputedOperandAtAMiddleAxis) {
  OnnxModelBuilder b(1);
  b.input("a", {2, 3, 2}).input("b", {2, 3}).output("d");
  b.node("Exp", {"b"}, {"e"});
  auto& sub = b.node("Sub", {"a", "e"}, {"d"});
  OnnxModelBuilder::attr(sub, "broadcast", int64_t{1});
  OnnxModelBuilder::attr(sub, "axis", int64_t{0});
  OnnxModelBuilder::attr(sub, "consumed_inputs", std::vector<int64_t>{0, 0});
  const std::vector<float> a = iota(12, 1, 1), bv = iota(6, -1, 0.25f);
  const auto out = testing::run_floats(b, {{"a", a}, {"b", bv}});
  std::vector<double> want;
  for (size_t i = 0; i < 12; ++i) want.push_back(a[i] - std::exp(static_cast<double>(bv[i / 2])));
  testing::expect_near_all(out.at("d"), want, 1e-6);
}

TEST(OnnxLegacyOps, OldBroadcastRefusesWhatThatVersionDoesNotDefine) {
  {
    OnnxModelBuilder b(6);
    b.input("a", {2, 3}).input("b", {3}).output("y");
    b.node("Add", {"a", "b"}, {"y"}, "plain");
    expect_contains(testing::import_error(b),
                    "node 'plain' (Add): input shapes [2,3] and [3] differ and attribute 'broadcast' is 0");
  }
  {
    OnnxModelBuilder b(6);
    b.input("a", {2, 3}).input("b", {3}).output("y");
    auto& add = b.node("Div", {"a", "b"}, {"y"}, "off");
    OnnxModelBuilder::attr(add, "broadcast", int64_t{1});
    OnnxModelBuilder::attr(add, "axis", int64_t{0});
    expect_contains(testing::import_error(b), "node 'off' (Div): input 1 [3] does not match input 0 [2,3] from axis 0");
  }
  {
    OnnxModelBuilder b(7);
    b.input("a", {2, 3}).input("b", {3}).output("y");
    OnnxModelBuilder::attr(b.node("Add", {"a", "b"}, {"y"}, "new"), "broadcast", int64_t{1});
    expect_contains(testing::import_error(b), "attribute 'broadcast' is not in Add version 7 (only before 7)");
  }
}

TEST(OnnxLegacyOps, GemmSixBroadcastsCOnlyWithBroadcast) {
  OnnxModelBuilder b(6);
  b.input("a", {2, 3}).floats("w", {4, 3}, iota(12, -1, 0.25f)).floats("c", {4}, {1, 2, 3, 4}).output("y");
  auto& gemm = b.node("Gemm", {"a", "w", "c"}, {"y"});
  OnnxModelBuilder::attr(gemm, "broadcast", int64_t{1});
  OnnxModelBuilder::attr(gemm, "transB", int64_t{1});
  OnnxModelBuilder::float_attr(gemm, "beta", 0.5f);
  const std::vector<float> a = iota(6, 0.5f, 1), w = iota(12, -1, 0.25f);
  const auto out = testing::run_floats(b, {{"a", a}});
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      double acc = 0.5 * (j + 1);
      for (int k = 0; k < 3; ++k) acc += a[i * 3 + k] * w[j * 3 + k];
      want.push_back(acc);
    }
  }
  testing::expect_near_all(out.at("y"), want, 1e-5);

  OnnxModelBuilder strict(6);
  strict.input("a", {2, 3}).floats("w", {3, 4}, iota(12, 0, 1)).floats("c", {4}, {1, 2, 3, 4}).output("y");
  strict.node("Gemm", {"a", "w", "c"}, {"y"}, "no_broadcast");
  expect_contains(testing::import_error(strict),
                  "node 'no_broadcast' (Gemm): input C [4] is not [2,4] and attribute 'broadcast' is 0");
}

TEST(OnnxLegacyOps, PReluSixSlopeIsPerChannel) {
  OnnxModelBuilder b(6);
  b.input("x", {2, 3, 2}).floats("slope", {3}, {0.1f, 0.2f, 0.3f}).floats("one", {1}, {0.5f}).output("y").output("z");
  b.node("PRelu", {"x", "slope"}, {"y"});
  b.node("PRelu", {"x", "one"}, {"z"});
  const std::vector<float> x = iota(12, -3, 0.5f);
  const auto out = testing::run_floats(b, {{"x", x}});
  std::vector<double> y, z;
  for (size_t i = 0; i < 12; ++i) {
    const double slope = 0.1 * static_cast<double>((i / 2) % 3 + 1);
    y.push_back(x[i] < 0 ? x[i] * static_cast<float>(slope) : x[i]);
    z.push_back(x[i] < 0 ? x[i] * 0.5 : x[i]);
  }
  testing::expect_near_all(out.at("y"), y, 1e-6);
  testing::expect_near_all(out.at("z"), z, 1e-6);

  OnnxModelBuilder odd(6);
  odd.input("x", {2, 3, 2}).floats("slope", {2}, {0.1f, 0.2f}).output("y");
  odd.node("PRelu", {"x", "slope"}, {"y"}, "p");
  expect_contains(testing::import_error(odd),
                  "node 'p' (PRelu): slope [2] is neither one value nor one per channel of [2,3,2]");
}

TEST(OnnxLegacyOps, BatchNormSixRunsInTestModeAndRefusesTraining) {
  auto model = [](int64_t is_test) {
    OnnxModelBuilder b(6);
    b.input("x", {1, 2, 3})
        .floats("s", {2}, {1, 2})
        .floats("bias", {2}, {0, 1})
        .floats("m", {2}, {1, -1})
        .floats("v", {2}, {4, 1})
        .output("y");
    auto& bn = b.node("BatchNormalization", {"x", "s", "bias", "m", "v"}, {"y"}, "bn");
    if (is_test >= 0) OnnxModelBuilder::attr(bn, "is_test", is_test);
    OnnxModelBuilder::float_attr(bn, "epsilon", 0);
    return b;
  };
  const std::vector<float> x = iota(6, -2, 1);
  const auto out = testing::run_floats(model(1), {{"x", x}});
  std::vector<double> want;
  for (size_t i = 0; i < 6; ++i) want.push_back(i < 3 ? (x[i] - 1) / 2 : (x[i] + 1) * 2 + 1);
  testing::expect_near_all(out.at("y"), want, 1e-6);
  for (int64_t training : {int64_t{0}, int64_t{-1}}) {
    expect_contains(
        testing::import_error(model(training)),
        "node 'bn' (BatchNormalization, opset 6): attribute 'is_test' = 0 (training, the default of version 6) is not supported");
  }
}

TEST(OnnxLegacyOps, ConsumedInputsIsIgnoredInVersionOneAndRefusedAfter) {
  OnnxModelBuilder b(1);
  b.input("x", {4}).output("y");
  OnnxModelBuilder::attr(b.node("Relu", {"x"}, {"r"}), "consumed_inputs", std::vector<int64_t>{0});
  OnnxModelBuilder::attr(b.node("Selu", {"r"}, {"y"}), "consumed_inputs", std::vector<int64_t>{0});
  const auto out = testing::run_floats(b, {{"x", {-1, 0.5f, 2, -3}}});
  // Selu 1's defaults: alpha 1.6732, gamma 1.0507 (6 has more digits); only positives survive the Relu.
  testing::expect_near_all(out.at("y"), {0, 0.5 * 1.0507, 2 * 1.0507, 0}, 1e-7);

  OnnxModelBuilder later(6);
  later.input("x", {4}).output("y");
  OnnxModelBuilder::attr(later.node("Relu", {"x"}, {"y"}, "r6"), "consumed_inputs", std::vector<int64_t>{0});
  expect_contains(testing::import_error(later), "attribute 'consumed_inputs' is not in Relu version 6 (only before 6)");
}

TEST(OnnxLegacyOps, DropoutSixIsTheIdentityInTestModeOnly) {
  auto model = [](bool test) {
    OnnxModelBuilder b(6);
    b.input("x", {3}).output("y");
    auto& d = b.node("Dropout", {"x"}, {"y"}, "drop");
    if (test) OnnxModelBuilder::attr(d, "is_test", int64_t{1});
    return b;
  };
  testing::expect_near_all(testing::run_floats(model(true), {{"x", {1, -2, 3}}}).at("y"), {1, -2, 3}, 0);
  expect_contains(testing::import_error(model(false)),
                  "node 'drop' (Dropout, opset 6): attribute 'is_test' = 0 (training, the default of version 6)");
}

TEST(OnnxLegacyOps, DropoutMaskIsAllTrueInInference) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 3}).floats("ratio", {}, {0.3f}).output("y").output("mask");
  auto& training = b.initializer("training", onnx::TensorProto::BOOL, {});
  training.add_int32_data(0);
  b.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"});
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const std::vector<float> x = iota(6, -1, 0.5f);
  const auto out = exec.run({{"x", HostTensor::floats({2, 3}, x)}});
  EXPECT_EQ(out.at("y").as_floats(), x);
  const HostTensor& mask = out.at("mask");
  EXPECT_EQ(mask.dtype, DType::Bool);
  ASSERT_EQ(mask.elements(), 6);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(mask.at(i), 1) << i;
}

}  // namespace
}  // namespace tf::graph

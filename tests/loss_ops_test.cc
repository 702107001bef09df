// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, Trilu, EyeLike and OneHot through the op
// registry as models write them, built into compiled models and run; and the elementwise corners
// they need: typed scalar literals, scalar outputs, outputs above rank 6. Expected values are
// worked out by hand from ONNX's definitions, not by the code under test.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using runtime::model::HostTensors;
using testing::expect_output;
using testing::import_error;
using testing::OnnxModelBuilder;
using testing::run_typed;

std::vector<float> iota(int n) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

// x[n, c, d] = 6n + 2c + d on [2, 3, 2]; target [[2, 0], [1, -1]] with ignore_index -1; weight
// [0.5, 1, 2]. Losses -x[n, t, d] * w[t]: -4 * 2, -1 * 0.5, -8 * 1 and 0 for the ignored one.
TEST(OnnxLossOps, NllLossWeightsIgnoresAndReducesWithRuntimeTargets) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 3, 2}).input("t", {2, 2}, onnx::TensorProto::INT64).input("w", {3});
  for (const char* r : {"none", "sum", "mean"}) {
    auto& n = b.node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {std::string("loss_") + r});
    OnnxModelBuilder::attr(n, "reduction", std::string(r));
    OnnxModelBuilder::attr(n, "ignore_index", int64_t{-1});
    b.output(std::string("loss_") + r);
  }
  auto& plain = b.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss_plain"});
  OnnxModelBuilder::attr(plain, "ignore_index", int64_t{-1});
  b.output("loss_plain");
  const HostTensors out = run_typed(b, {{"x", HostTensor::floats({2, 3, 2}, iota(12))},
                                        {"t", HostTensor::int64s({2, 2}, {2, 0, 1, -1})},
                                        {"w", HostTensor::floats({3}, {0.5f, 1.0f, 2.0f})}});
  expect_output(out, "loss_none", {2, 2}, {-8, -0.5, -8, 0}, 1e-5);
  expect_output(out, "loss_sum", {}, {-16.5}, 1e-5);
  // The weighted mean divides by the weights of the counted targets: 2 + 0.5 + 1.
  expect_output(out, "loss_mean", {}, {-16.5 / 3.5}, 1e-5);
  // Without weights it divides by the number of counted targets: (-4 - 1 - 8) / 3.
  expect_output(out, "loss_plain", {}, {-13.0 / 3}, 1e-5);
}

TEST(OnnxLossOps, SoftmaxCrossEntropyGivesTheLossAndTheLogProbabilities) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 3}).input("t", {2}, onnx::TensorProto::INT64);
  b.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "log_prob"});
  b.output("loss").output("log_prob");
  const HostTensors out =
      run_typed(b, {{"x", HostTensor::floats({2, 3}, {0, 1, 2, 1, 1, 1})}, {"t", HostTensor::int64s({2}, {2, 0})}});
  const double lse0 = std::log(1 + std::exp(1.0) + std::exp(2.0)), third = -std::log(3.0);
  expect_output(out, "log_prob", {2, 3}, {-lse0, 1 - lse0, 2 - lse0, third, third, third}, 1e-5);
  expect_output(out, "loss", {}, {((lse0 - 2) - third) / 2}, 1e-5);
}

// x[b, i, j] = 12b + 4i + j on [2, 3, 4]: upper keeps j - i >= 1, lower keeps j - i <= -1.
TEST(OnnxLossOps, TriluMasksEachMatrixOfABatch) {
  OnnxModelBuilder b(14);
  b.input("x", {2, 3, 4});
  b.ints("k_up", {}, {1}).ints("k_low", {}, {-1});
  b.node("Trilu", {"x", "k_up"}, {"upper"});
  OnnxModelBuilder::attr(b.node("Trilu", {"x", "k_low"}, {"lower"}), "upper", int64_t{0});
  b.output("upper").output("lower");
  const HostTensors out = run_typed(b, {{"x", HostTensor::floats({2, 3, 4}, iota(24))}});
  std::vector<double> upper, lower;
  for (int e = 0; e < 24; ++e) {
    const int i = (e / 4) % 3, j = e % 4;
    upper.push_back(j - i >= 1 ? e : 0);
    lower.push_back(j - i <= -1 ? e : 0);
  }
  expect_output(out, "upper", {2, 3, 4}, upper, 1e-5);
  expect_output(out, "lower", {2, 3, 4}, lower, 1e-5);
}

TEST(OnnxLossOps, EyeLikeFoldsAndOneHotRunsOnRuntimeIndices) {
  OnnxModelBuilder b(11);
  b.input("x", {3, 4}).input("idx", {3}, onnx::TensorProto::INT64);
  OnnxModelBuilder::attr(b.node("EyeLike", {"x"}, {"eye"}), "k", int64_t{1});
  b.ints("depth", {}, {4}).floats("values", {2}, {-1.0f, 3.0f});
  OnnxModelBuilder::attr(b.node("OneHot", {"idx", "depth", "values"}, {"hot"}), "axis", int64_t{0});
  // Float indices and values both computed: the classes compare in float32, on and off are gathered.
  b.input("fidx", {2}).input("fvalues", {2});
  b.ints("depth3", {}, {3});
  b.node("OneHot", {"fidx", "depth3", "fvalues"}, {"fhot"});
  b.output("eye").output("hot").output("fhot");
  const HostTensors out = run_typed(b, {{"x", HostTensor::floats({3, 4}, iota(12))},
                                        {"idx", HostTensor::int64s({3}, {1, -1, 5})},
                                        {"fidx", HostTensor::floats({2}, {2, -3})},
                                        {"fvalues", HostTensor::floats({2}, {0.5f, 9})}});
  expect_output(out, "fhot", {2, 3}, {0.5, 0.5, 9, 9, 0.5, 0.5}, 1e-5);
  expect_output(out, "eye", {3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 1e-5);
  // Along axis 0: index 1 is class 1, -1 is class 3, 5 is none.
  expect_output(out, "hot", {4, 3}, {-1, -1, -1, 3, -1, -1, -1, -1, -1, -1, 3, -1}, 1e-5);
}

TEST(OnnxLossOps, ElementwiseTakesTypedLiteralsScalarsAndMergesRankSeven) {
  OnnxModelBuilder b(13);
  b.input("t", {3}, onnx::TensorProto::INT64).input("a", {}).input("c", {});
  b.input("x", {2, 2, 2, 2, 2, 2, 2}).input("y", {1, 1, 1, 1, 1, 1, 2});
  b.ints("minus_one", {}, {-1}).ints("seven", {}, {7}).ints("big", {}, {int64_t{1} << 40});
  b.node("Equal", {"t", "minus_one"}, {"is_minus_one"});
  b.node("Where", {"is_minus_one", "seven", "t"}, {"replaced"});
  // Beyond float32's exact integers a constant is a kernel argument, not a literal.
  b.node("Where", {"is_minus_one", "big", "t"}, {"replaced_big"});
  b.node("Mul", {"a", "c"}, {"product"});
  b.node("Add", {"x", "y"}, {"sum7"});
  for (const char* o : {"is_minus_one", "replaced", "replaced_big", "product", "sum7"}) b.output(o);
  std::vector<double> sum7;
  for (int i = 0; i < 128; ++i) sum7.push_back(i + (i % 2 ? 20 : 10));
  const HostTensors out = run_typed(b, {{"t", HostTensor::int64s({3}, {4, -1, 0})},
                                        {"a", HostTensor::floats({}, {1.5f})},
                                        {"c", HostTensor::floats({}, {-4.0f})},
                                        {"x", HostTensor::floats({2, 2, 2, 2, 2, 2, 2}, iota(128))},
                                        {"y", HostTensor::floats({1, 1, 1, 1, 1, 1, 2}, {10, 20})}});
  EXPECT_EQ(out.at("is_minus_one").dtype, DType::Bool);
  expect_output(out, "is_minus_one", {3}, {0, 1, 0}, 1e-5);
  EXPECT_EQ(out.at("replaced").dtype, DType::Int64);
  expect_output(out, "replaced", {3}, {4, 7, 0}, 1e-5);
  EXPECT_EQ(out.at("replaced_big").as_int64s(), (std::vector<int64_t>{4, int64_t{1} << 40, 0}));
  expect_output(out, "product", {}, {-6}, 1e-5);
  expect_output(out, "sum7", {2, 2, 2, 2, 2, 2, 2}, sum7, 1e-5);
}

TEST(OnnxLossOps, RankSevenThatAlternatesBroadcastIsRefusedByName) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 1, 2, 1, 2, 1, 2}).input("y", {1, 2, 1, 2, 1, 2, 1});
  b.node("Add", {"x", "y"}, {"z"}, "alternating");
  b.output("z");
  try {
    run_typed(b, {});
    FAIL() << "expected a refusal";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("alternating"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 7"), std::string::npos) << what;
  }
}

TEST(OnnxLossOps, LossRefusesAnUnknownReductionAndAMisshapedTarget) {
  OnnxModelBuilder b(13);
  b.input("x", {2, 3}).input("t", {3}, onnx::TensorProto::INT64);
  b.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, "nll");
  b.output("loss");
  try {
    import_onnx_bytes(b.bytes(), "bad.onnx");
    FAIL() << "expected a refusal";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("target 't' [3]"), std::string::npos) << e.what();
  }
  OnnxModelBuilder r(13);
  r.input("x", {2, 3}).input("t", {2}, onnx::TensorProto::INT64);
  OnnxModelBuilder::attr(r.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, "nll"), "reduction",
                         std::string("max"));
  r.output("loss");
  EXPECT_THROW(import_onnx_bytes(r.bytes(), "bad.onnx"), CompileError);
}

}  // namespace
}  // namespace tf::graph

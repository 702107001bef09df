// Add, Sub, Mul, Max, Min, Mod and Pow on int32 and int64 tensors as compiled kernels (the inputs
// fed at run time): the first five in the integer type, Mod as Python's % (fmod=0) or C's fmod
// (fmod=1), Pow of an integer base rounded from float32 back to the base's type, with an integer
// or float exponent.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using runtime::model::HostTensors;
using testing::OnnxModelBuilder;

const std::vector<int64_t> kA = {-7, 7, 5, -4, 9, 3};
const std::vector<int64_t> kB = {3, -3, 8, -2, 2, 4};
const std::vector<int64_t> kK = {3, 3, 8, 2, 2, 4};  // exponents

HostTensor typed(DType t, const std::vector<int64_t>& v) {
  return t == DType::Int64 ? HostTensor::int64s({6}, v)
                           : HostTensor::int32s({6}, std::vector<int32_t>(v.begin(), v.end()));
}

int64_t python_mod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

void expect_ints(const HostTensors& out, const std::string& name, DType t, const std::vector<int64_t>& want) {
  SCOPED_TRACE(name);
  const HostTensor& got = out.at(name);
  EXPECT_EQ(got.dtype, t);
  ASSERT_EQ(got.elements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got.at(static_cast<int64_t>(i)), static_cast<double>(want[i])) << i;
}

void check(DType t) {
  const int onnx_type = t == DType::Int64 ? onnx::TensorProto::INT64 : onnx::TensorProto::INT32;
  OnnxModelBuilder b(13);
  b.input("a", {6}, onnx_type).input("b", {6}, onnx_type).input("e", {6}, onnx::TensorProto::FLOAT);
  b.node("Add", {"a", "b"}, {"sum"});
  b.node("Mul", {"sum", "b"}, {"product"});
  b.node("Sub", {"product", "a"}, {"difference"});
  b.node("Max", {"a", "b"}, {"max"});
  b.node("Min", {"a", "b"}, {"min"});
  b.node("Mod", {"a", "b"}, {"mod"});
  OnnxModelBuilder::attr(b.node("Mod", {"a", "b"}, {"fmod"}), "fmod", int64_t{1});
  b.input("k", {6}, onnx_type);
  b.node("Pow", {"a", "k"}, {"pow"});
  b.node("Pow", {"a", "e"}, {"pow_float"});
  for (const char* out : {"difference", "max", "min", "mod", "fmod", "pow", "pow_float"}) b.output(out);
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const std::vector<float> e = {2, 1, 0, 3, 2, 1};
  const HostTensors out =
      exec.run({{"a", typed(t, kA)}, {"b", typed(t, kB)}, {"e", HostTensor::floats({6}, e)}, {"k", typed(t, kK)}});
  std::vector<int64_t> difference, max, min, mod, fmod, pow, pow_float;
  for (size_t i = 0; i < kA.size(); ++i) {
    difference.push_back((kA[i] + kB[i]) * kB[i] - kA[i]);
    max.push_back(std::max(kA[i], kB[i]));
    min.push_back(std::min(kA[i], kB[i]));
    mod.push_back(python_mod(kA[i], kB[i]));
    fmod.push_back(kA[i] % kB[i]);
    pow.push_back(std::llround(std::pow(static_cast<double>(kA[i]), static_cast<double>(kK[i]))));
    pow_float.push_back(std::llround(std::pow(static_cast<double>(kA[i]), static_cast<double>(e[i]))));
  }
  expect_ints(out, "difference", t, difference);
  expect_ints(out, "max", t, max);
  expect_ints(out, "min", t, min);
  expect_ints(out, "mod", t, mod);
  expect_ints(out, "fmod", t, fmod);
  expect_ints(out, "pow", t, pow);
  expect_ints(out, "pow_float", t, pow_float);
}

TEST(OnnxIntegerElementwise, Int32KernelsComputeInTheirType) { check(DType::Int32); }

TEST(OnnxIntegerElementwise, Int64KernelsComputeInTheirType) { check(DType::Int64); }

}  // namespace
}  // namespace tf::graph

// Float64 values end to end: DOUBLE inputs and initializers imported without rounding, float64
// elementwise kernels (arithmetic, Min/Max, Mod, comparisons, Where, Cast to and from float32, the
// exact unary ops) run by a compiled model on float64 HostTensors, the same model folded when its
// inputs are initializers, scalar constants as float64 literals or kernel arguments, .npy files of
// '<f8', and the kernels that stay float32 refusing a float64 input by name. Values are chosen so
// that anything computed or stored in float32 would differ: 1 + 1e-12 is 1 in float32.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "bench/ort_peer.h"
#include "runtime/model/executor.h"
#include "support/npy.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using runtime::model::HostTensors;
using testing::OnnxModelBuilder;

const std::vector<double> kX = {1.0, -4.3, 7.2, 1e-300, -0.5, 3.0};
const std::vector<double> kY = {1e-12, 2.1, -3.4, 1e-300, 0.25, 1.0 / 3.0};
const std::vector<float> kF = {0.1f, -2.5f, 3.0f, 1e-30f, 7.75f, -1.0f};
const std::vector<bool> kMask = {true, false, true, false, true, false};

void add_doubles(onnx::TensorProto& t, const std::vector<double>& v) {
  for (double d : v) t.add_double_data(d);
}

// x, y float64 [2,3], f float32 [2,3], mask bool [2,3]; as graph inputs or as initializers.
OnnxModelBuilder float64_model(bool constants) {
  OnnxModelBuilder b(13);
  if (constants) {
    add_doubles(b.initializer("x", onnx::TensorProto::DOUBLE, {2, 3}), kX);
    add_doubles(b.initializer("y", onnx::TensorProto::DOUBLE, {2, 3}), kY);
    b.floats("f", {2, 3}, kF);
    auto& m = b.initializer("mask", onnx::TensorProto::BOOL, {2, 3});
    for (bool v : kMask) m.add_int32_data(v);
  } else {
    b.input("x", {2, 3}, onnx::TensorProto::DOUBLE).input("y", {2, 3}, onnx::TensorProto::DOUBLE);
    b.input("f", {2, 3}).input("mask", {2, 3}, onnx::TensorProto::BOOL);
  }
  // 0.1 is not a float32: it stays a kernel argument; 0.5 is, and becomes a float64 literal.
  add_doubles(b.initializer("tenth", onnx::TensorProto::DOUBLE, {}), {0.1});
  add_doubles(b.initializer("half", onnx::TensorProto::DOUBLE, {}), {0.5});
  b.node("Add", {"x", "y"}, {"sum"});
  b.node("Sub", {"x", "y"}, {"diff"});
  b.node("Mul", {"x", "y"}, {"prod"});
  b.node("Div", {"x", "y"}, {"quot"});
  b.node("Max", {"x", "y"}, {"max"});
  b.node("Min", {"x", "y"}, {"min"});
  OnnxModelBuilder::attr(b.node("Mod", {"x", "y"}, {"mod"}), "fmod", int64_t{1});
  b.node("Greater", {"x", "y"}, {"above"});
  b.node("Where", {"mask", "x", "y"}, {"picked"});
  b.node("Add", {"x", "tenth"}, {"plus_tenth"});
  b.node("Mul", {"x", "half"}, {"halved"});
  b.node("Neg", {"y"}, {"neg"});
  b.node("Abs", {"x"}, {"abs"});
  b.node("Sqrt", {"y"}, {"sqrt"});
  OnnxModelBuilder::attr(b.node("Cast", {"x"}, {"x_f"}), "to", int64_t{onnx::TensorProto::FLOAT});
  OnnxModelBuilder::attr(b.node("Cast", {"f"}, {"f_d"}), "to", int64_t{onnx::TensorProto::DOUBLE});
  for (const char* out : {"sum", "diff", "prod", "quot", "max", "min", "mod", "above", "picked", "plus_tenth", "halved",
                          "neg", "abs", "sqrt", "x_f", "f_d"}) {
    b.output(out);
  }
  return b;
}

HostTensors run(const OnnxModelBuilder& b, bool constants) {
  runtime::model::Executor exec(testing::build_with_defaults(b));
  HostTensors feeds;
  if (!constants) {
    feeds["x"] = HostTensor::float64s({2, 3}, kX);
    feeds["y"] = HostTensor::float64s({2, 3}, kY);
    feeds["f"] = HostTensor::floats({2, 3}, kF);
    feeds["mask"] = HostTensor::bools({2, 3}, kMask);
  }
  return exec.run(feeds);
}

// Exactly `want`, element by element, in `dtype`.
void expect_exact(const HostTensors& out, const std::string& name, DType dtype, const std::vector<double>& want) {
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

void expect_double_semantics(const HostTensors& out) {
  std::vector<double> sum, diff, prod, quot, mx, mn, mod, above, picked, plus_tenth, halved, neg, abs, sqrt, x_f, f_d;
  for (size_t i = 0; i < kX.size(); ++i) {
    const double x = kX[i], y = kY[i];
    sum.push_back(x + y);
    diff.push_back(x - y);
    prod.push_back(x * y);
    quot.push_back(x / y);
    mx.push_back(std::max(x, y));
    mn.push_back(std::min(x, y));
    mod.push_back(std::fmod(x, y));
    above.push_back(x > y);
    picked.push_back(kMask[i] ? x : y);
    plus_tenth.push_back(x + 0.1);
    halved.push_back(x * 0.5);
    neg.push_back(-y);
    abs.push_back(std::fabs(x));
    sqrt.push_back(std::sqrt(y));
    x_f.push_back(static_cast<float>(x));
    f_d.push_back(static_cast<double>(kF[i]));
  }
  ASSERT_NE(sum[0], 1.0);  // what float32 would give
  expect_exact(out, "sum", DType::Float64, sum);
  expect_exact(out, "diff", DType::Float64, diff);
  expect_exact(out, "prod", DType::Float64, prod);
  expect_exact(out, "quot", DType::Float64, quot);
  expect_exact(out, "max", DType::Float64, mx);
  expect_exact(out, "min", DType::Float64, mn);
  expect_exact(out, "mod", DType::Float64, mod);
  expect_exact(out, "above", DType::Bool, above);
  expect_exact(out, "picked", DType::Float64, picked);
  expect_exact(out, "plus_tenth", DType::Float64, plus_tenth);
  expect_exact(out, "halved", DType::Float64, halved);
  expect_exact(out, "neg", DType::Float64, neg);
  expect_exact(out, "abs", DType::Float64, abs);
  expect_exact(out, "sqrt", DType::Float64, sqrt);
  expect_exact(out, "x_f", DType::Float32, x_f);
  expect_exact(out, "f_d", DType::Float64, f_d);
}

TEST(OnnxFloat64, KernelsComputeInDoublePrecision) { expect_double_semantics(run(float64_model(false), false)); }

TEST(OnnxFloat64, FoldedConstantsKeepDoublePrecision) { expect_double_semantics(run(float64_model(true), true)); }

TEST(OnnxFloat64, ModOfFloat64IsExactWhereTheQuotientRoundsAcrossAnInteger) {
  // 1 / 0.1 is 9.99999999999999945 and rounds to 10: fmod(1, 0.1) is 0.09999999999999995, not the
  // -5.6e-17 that truncating the rounded quotient leaves. For 1e15 + 0.5 mod 0.7, t y rounds
  // unless fused with the subtraction.
  OnnxModelBuilder b(13);
  b.input("x", {6}, onnx::TensorProto::DOUBLE).input("y", {6}, onnx::TensorProto::DOUBLE).output("r");
  OnnxModelBuilder::attr(b.node("Mod", {"x", "y"}, {"r"}), "fmod", int64_t{1});
  const std::vector<double> x = {1.0, -1.0, 0.3, 1e15 + 0.5, 5.0, -7.0}, y = {0.1, 0.1, 0.1, 0.7, -3.0, 1e300};
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const HostTensors out = exec.run({{"x", HostTensor::float64s({6}, x)}, {"y", HostTensor::float64s({6}, y)}});
  std::vector<double> want;
  for (size_t i = 0; i < x.size(); ++i) want.push_back(std::fmod(x[i], y[i]));
  expect_exact(out, "r", DType::Float64, want);
}

// PyTorch's old exports: Add at opset 6 with 'broadcast' and 'axis', B aligned to A from the axis.
TEST(OnnxFloat64, LegacyBroadcastOfOpset6AlignsBFromItsAxis) {
  OnnxModelBuilder b(6);
  b.input("a", {2, 3, 2}, onnx::TensorProto::DOUBLE)
      .input("b", {3}, onnx::TensorProto::DOUBLE)
      .input("c", {2}, onnx::TensorProto::DOUBLE);
  b.output("at_axis").output("suffix");
  auto& at_axis = b.node("Add", {"a", "b"}, {"at_axis"});
  OnnxModelBuilder::attr(at_axis, "broadcast", int64_t{1});
  OnnxModelBuilder::attr(at_axis, "axis", int64_t{1});
  OnnxModelBuilder::attr(b.node("Sub", {"a", "c"}, {"suffix"}), "broadcast", int64_t{1});
  std::vector<double> a(12), bv = {1e-12, 2e-12, 3e-12}, cv = {0.5, 0.25};
  for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0 + static_cast<double>(i);
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const HostTensors out = exec.run({{"a", HostTensor::float64s({2, 3, 2}, a)},
                                    {"b", HostTensor::float64s({3}, bv)},
                                    {"c", HostTensor::float64s({2}, cv)}});
  std::vector<double> at, suffix;
  for (size_t i = 0; i < a.size(); ++i) {
    at.push_back(a[i] + bv[(i / 2) % 3]);
    suffix.push_back(a[i] - cv[i % 2]);
  }
  expect_exact(out, "at_axis", DType::Float64, at);
  expect_exact(out, "suffix", DType::Float64, suffix);

  OnnxModelBuilder bad(6);
  bad.input("a", {2, 3}).input("b", {3}).output("y");
  bad.node("Mul", {"a", "b"}, {"y"}, "mul");
  EXPECT_NE(testing::import_error(bad).find(
                "node 'mul' (Mul): input shapes [2,3] and [3] differ and attribute 'broadcast' is 0"),
            std::string::npos)
      << testing::import_error(bad);
}

// The peer computes in double too: the kernels' outputs, and the .npy files between, are its bits.
TEST(ModelVsOrt, Float64ElementwiseAgreesWithOnnxRuntimeExactly) {
  const std::string problem = bench::ort_setup_problem();
  ASSERT_EQ(problem, "") << "ONNX Runtime is needed for this check";
  const std::string dir = ::testing::TempDir() + "/tf_f64_ort_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const OnnxModelBuilder b = float64_model(false);
  const std::string onnx = dir + "/f64.onnx";
  {
    std::ofstream f(onnx, std::ios::binary);
    f << b.bytes();
  }
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const HostTensors feeds = {{"x", HostTensor::float64s({2, 3}, kX)},
                             {"y", HostTensor::float64s({2, 3}, kY)},
                             {"f", HostTensor::floats({2, 3}, kF)},
                             {"mask", HostTensor::bools({2, 3}, kMask)}};
  bench::OrtOptions ort;
  ort.model = onnx;
  ort.work_dir = dir + "/ort";
  for (const auto& [name, t] : feeds) {
    ort.inputs[name] = dir + "/" + name + ".npy";
    write_npy(ort.inputs[name], t);
  }
  const HostTensors ours = exec.run(feeds);
  const bench::OrtResult theirs = bench::run_ort(ort);
  for (const auto& [name, t] : ours) {
    SCOPED_TRACE(name);
    ASSERT_EQ(theirs.output_files.count(name), 1u);
    const HostTensor want = read_npy(theirs.output_files.at(name));
    EXPECT_EQ(t.dtype, want.dtype);
    ASSERT_EQ(t.elements(), want.elements());
    for (int64_t i = 0; i < t.elements(); ++i) {
      if (std::isnan(want.at(i)))
        EXPECT_TRUE(std::isnan(t.at(i))) << i;
      else
        EXPECT_EQ(t.at(i), want.at(i)) << i;
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(OnnxFloat64, NpyFilesOfFloat64RoundTrip) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tf_f64_" + std::to_string(getpid()) + ".npy")).string();
  const HostTensor t = HostTensor::float64s({2, 3}, kX);
  write_npy(path, t);
  const HostTensor back = read_npy(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.dtype, DType::Float64);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back.as_float64s(), kX);
  EXPECT_THROW(back.as_floats(), std::invalid_argument);
}

TEST(OnnxFloat64, AnInputOfTheWrongDtypeIsRefusedByName) {
  OnnxModelBuilder b(13);
  b.input("x", {3}, onnx::TensorProto::DOUBLE).output("y");
  b.node("Neg", {"x"}, {"y"});
  runtime::model::Executor exec(testing::build_with_defaults(b));
  try {
    exec.run({{"x", HostTensor::floats({3}, {1, 2, 3})}});
    FAIL() << "a float32 feed for a float64 input ran";
  } catch (const std::exception& e) {
    const std::string why = e.what();
    EXPECT_NE(why.find("float64"), std::string::npos) << why;
    EXPECT_NE(why.find("'x'"), std::string::npos) << why;
  }
}

TEST(OnnxFloat64, Float32OnlyKernelsRefuseFloat64ByName) {
  {
    OnnxModelBuilder b(13);
    b.input("x", {4}, onnx::TensorProto::DOUBLE).output("y");
    b.node("Exp", {"x"}, {"y"}, "exp");
    const std::string why = testing::build_error(b);
    EXPECT_NE(why.find("node 'exp' (Exp): input 0 ('x') is float64; Exp's kernel does not take it"), std::string::npos)
        << why;
  }
  {
    OnnxModelBuilder b(13);
    b.input("x", {1, 1, 4, 4}, onnx::TensorProto::DOUBLE).output("y");
    add_doubles(b.initializer("w", onnx::TensorProto::DOUBLE, {1, 1, 3, 3}), std::vector<double>(9, 1.0));
    b.node("Conv", {"x", "w"}, {"y"}, "conv");
    const std::string why = testing::build_error(b);
    EXPECT_NE(why.find("node 'conv' (Conv): input 0 ('x') is float64; Conv takes float32"), std::string::npos) << why;
  }
  {
    OnnxModelBuilder b(13);
    b.input("a", {2, 2}, onnx::TensorProto::DOUBLE).input("b", {2, 2}, onnx::TensorProto::DOUBLE).output("y");
    b.node("MatMul", {"a", "b"}, {"y"}, "mm");
    const std::string why = testing::build_error(b);
    EXPECT_NE(why.find("node 'mm' (MatMul): input 0 ('a') is float64; MatMul takes float32"), std::string::npos) << why;
  }
  {
    OnnxModelBuilder b(13);
    b.input("x", {2, 3}, onnx::TensorProto::DOUBLE).output("y");
    b.node("ReduceSum", {"x"}, {"y"}, "sum");
    const std::string why = testing::build_error(b);
    EXPECT_NE(why.find("is float64; the reduce kernels take float32"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace tf::graph

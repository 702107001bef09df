// The data-movement ops through the op registry as models write them, built into compiled models
// and run: Slice (negative steps, clamping), Split, Pad (reflect, constant with a runtime value),
// Tile, Expand (strided_copy kernels), Gather with runtime int64 indices, GatherElements, and the
// shape values Size, Range and ConstantOfShape (folded into constant outputs). Expected values are
// written from ONNX's definitions by hand (index lists), not by the code under test.
#include <gtest/gtest.h>

#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using runtime::model::HostTensors;
using testing::expect_output;
using testing::import_error;
using testing::OnnxModelBuilder;
using testing::run_typed;

// x[r, c] = 5r + c on [4, 5].
std::vector<float> iota20() {
  std::vector<float> v;
  for (int i = 0; i < 20; ++i) v.push_back(static_cast<float>(i));
  return v;
}

// Values of x at rows `rows` and columns `cols`, row-major.
std::vector<double> pick(const std::vector<int>& rows, const std::vector<int>& cols) {
  std::vector<double> v;
  for (int r : rows) {
    for (int c : cols) v.push_back(5 * r + c);
  }
  return v;
}

TEST(OnnxDataMovement, SliceSplitPadTileExpandRunAsStridedCopies) {
  OnnxModelBuilder b(13);
  b.input("x", {4, 5}).input("v", {});
  b.ints("starts", {2}, {3, -1})
      .ints("ends", {2}, {-100, -1000})
      .ints("axes", {2}, {0, -1})
      .ints("steps", {2}, {-2, -2});
  b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"sliced"});
  b.ints("split", {2}, {2, 3});
  OnnxModelBuilder::attr(b.node("Split", {"x", "split"}, {"left", "right"}), "axis", int64_t{1});
  b.ints("pads", {4}, {1, 2, 0, 1});
  OnnxModelBuilder::attr(b.node("Pad", {"x", "pads"}, {"reflected"}), "mode", std::string("reflect"));
  b.ints("pads2", {4}, {0, 1, 1, 0});
  b.node("Pad", {"x", "pads2", "v"}, {"padded"});
  b.ints("repeats", {2}, {2, 1});
  b.node("Tile", {"x", "repeats"}, {"tiled"});
  b.ints("to", {3}, {2, 1, 5});
  b.node("Expand", {"x", "to"}, {"expanded"});
  for (const char* o : {"sliced", "left", "right", "reflected", "padded", "tiled", "expanded"}) b.output(o);
  const HostTensors out =
      run_typed(b, {{"x", HostTensor::floats({4, 5}, iota20())}, {"v", HostTensor::floats({}, {-7.5f})}});

  expect_output(out, "sliced", {2, 3}, pick({3, 1}, {4, 2, 0}));
  expect_output(out, "left", {4, 2}, pick({0, 1, 2, 3}, {0, 1}));
  expect_output(out, "right", {4, 3}, pick({0, 1, 2, 3}, {2, 3, 4}));
  // numpy's reflect: index -1 reads 1, -2 reads 2, 5 reads 3.
  expect_output(out, "reflected", {5, 8}, pick({1, 0, 1, 2, 3}, {2, 1, 0, 1, 2, 3, 4, 3}));
  std::vector<double> padded;
  for (int r = 0; r < 5; ++r) {
    for (int c = -1; c < 5; ++c) padded.push_back(r < 4 && c >= 0 ? 5 * r + c : -7.5);
  }
  expect_output(out, "padded", {5, 6}, padded);
  expect_output(out, "tiled", {8, 5}, pick({0, 1, 2, 3, 0, 1, 2, 3}, {0, 1, 2, 3, 4}));
  std::vector<double> twice = pick({0, 1, 2, 3}, {0, 1, 2, 3, 4});
  twice.insert(twice.end(), twice.begin(), twice.end());
  expect_output(out, "expanded", {2, 4, 5}, twice);
}

TEST(OnnxDataMovement, GatherTakesRuntimeIndicesAndGatherElementsConstantOnes) {
  OnnxModelBuilder b(13);
  b.input("x", {4, 5}).input("rows", {3}, onnx::TensorProto::INT64);
  OnnxModelBuilder::attr(b.node("Gather", {"x", "rows"}, {"by_rows"}), "axis", int64_t{0});
  b.ints("cols", {4, 2}, {4, -5, 0, 1, 2, 3, -1, 0});
  OnnxModelBuilder::attr(b.node("GatherElements", {"x", "cols"}, {"by_cols"}), "axis", int64_t{1});
  b.output("by_rows").output("by_cols");
  const HostTensors out =
      run_typed(b, {{"x", HostTensor::floats({4, 5}, iota20())}, {"rows", HostTensor::int64s({3}, {3, -4, 2})}});
  expect_output(out, "by_rows", {3, 5}, pick({3, 0, 2}, {0, 1, 2, 3, 4}));
  expect_output(out, "by_cols", {4, 2}, {4, 0, 5, 6, 12, 13, 19, 15});
}

TEST(OnnxDataMovement, ShapeValuesFoldIntoConstantOutputs) {
  OnnxModelBuilder b(13);
  b.input("x", {4, 5});
  b.node("Size", {"x"}, {"size"});
  b.ints("start", {}, {10}).ints("limit", {}, {3}).ints("delta", {}, {-3});
  b.node("Range", {"start", "limit", "delta"}, {"range"});
  b.ints("shape", {2}, {2, 3});
  auto& c = b.node("ConstantOfShape", {"shape"}, {"filled"});
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(2.5f);
  b.node("Relu", {"x"}, {"y"});
  for (const char* o : {"size", "range", "filled", "y"}) b.output(o);
  const HostTensors out = run_typed(b, {{"x", HostTensor::floats({4, 5}, iota20())}});
  expect_output(out, "size", {}, {20});
  EXPECT_EQ(out.at("size").dtype, DType::Int64);
  expect_output(out, "range", {3}, {10, 7, 4});
  expect_output(out, "filled", {2, 3}, {2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
}

TEST(OnnxDataMovement, BadAttributesAreRefusedNamingTheNode) {
  auto refusal = [](OnnxModelBuilder b) {
    try {
      BuildOptions options;
      options.target = codegen::host_target();
      (void)build_model(plan_graph(import_onnx_bytes(b.bytes(), "bad.onnx")), options);
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  OnnxModelBuilder zero_step(13);
  zero_step.input("x", {4, 5}).ints("s", {1}, {0}).ints("e", {1}, {3}).ints("a", {1}, {0}).ints("t", {1}, {0});
  zero_step.node("Slice", {"x", "s", "e", "a", "t"}, {"y"}, "cut");
  zero_step.output("y");
  EXPECT_NE(refusal(zero_step).find("node 'cut' (Slice"), std::string::npos) << refusal(zero_step);
  EXPECT_NE(refusal(zero_step).find("0 step"), std::string::npos) << refusal(zero_step);

  OnnxModelBuilder uneven(13);
  uneven.input("x", {4, 5}).ints("split", {2}, {2, 2});
  OnnxModelBuilder::attr(uneven.node("Split", {"x", "split"}, {"a", "b"}, "halves"), "axis", int64_t{1});
  uneven.output("a").output("b");
  EXPECT_NE(refusal(uneven).find("sums to 4, not the extent 5"), std::string::npos) << refusal(uneven);

  OnnxModelBuilder far(13);
  far.input("x", {4, 5}).ints("i", {1}, {4});
  far.node("Gather", {"x", "i"}, {"y"}, "pick");
  far.output("y");
  EXPECT_NE(refusal(far).find("index 4 is out of range for extent 4"), std::string::npos) << refusal(far);
}

}  // namespace
}  // namespace tf::graph

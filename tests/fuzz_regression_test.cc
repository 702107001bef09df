// What the fuzz targets (fuzz/, docs/fuzzing.md) found, each as the smallest input that did it and
// the clear refusal (or the clean result) expected now. The same inputs are in the fuzz corpora
// (fuzz/corpus/TARGET/regress-*), where the sanitizers check them on every short run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "graph/onnx_import.h"
#include "onnx_model_builder.h"
#include "runtime/measure_worker.h"
#include "runtime/wire.h"

namespace tf {
namespace {

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(accepted)";
}

// The refusal of a model of one node, "node1": `op` on `inputs`, among them the model's input x
// [1,4] and what `b` holds.
std::string one_node_refusal(graph::testing::OnnxModelBuilder& b, const std::string& op,
                             const std::vector<std::string>& inputs) {
  b.input("x", {1, 4});
  b.node(op, inputs, {"y"}, "node1");
  b.output("y");
  return refusal([&] { graph::import_onnx_bytes(b.bytes(), "model.onnx"); });
}

// config_json_fuzz: "--2" passed the index check (only digits and '-') and std::stoll threw
// std::invalid_argument("stoll"), a message that names nothing.
TEST(FuzzRegression, ConfigThatLooksLikeAnIndexIsReadAsJson) {
  const compiler::Task task(ops::Workload{"dense", {64, 48, 32}},
                            codegen::parse_target("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=x86-64-v3"));
  for (const char* spec : {"--2", "1-2", "-", "2-"}) {
    const std::string why = refusal([&] { task.parse_config(spec); });
    EXPECT_EQ(why.rfind("config: invalid JSON", 0), 0u) << spec << " -> " << why;
  }
  EXPECT_NE(refusal([&] { task.parse_config("-3"); }).find("config index -3 is outside the space"), std::string::npos);
  EXPECT_EQ(task.parse_config(" 12 ").index(), 12);
}

// onnx_import_fuzz: an initializer of extents whose product is beyond int64 was refused, but the
// message converted the product (a double) to int64 first: undefined behaviour (UBSan).
TEST(FuzzRegression, OnnxTensorWithTooManyElementsIsRefusedByName) {
  graph::testing::OnnxModelBuilder b;
  b.floats("huge_weight", {int64_t{1} << 40, int64_t{1} << 40}, {});
  const std::string why = one_node_refusal(b, "MatMul", {"x", "huge_weight"});
  EXPECT_NE(why.find("huge_weight"), std::string::npos) << why;
  EXPECT_NE(why.find("1.20893e+24 elements is too many (at most 2147483648)"), std::string::npos) << why;
}

// onnx_import_fuzz: with a zero extent the product was 0 and passed the check, but multiplying
// the extents in order overflowed int64 before reaching the 0: undefined behaviour (UBSan).
TEST(FuzzRegression, OnnxEmptyTensorWithHugeExtentsIsRefused) {
  graph::testing::OnnxModelBuilder b;
  b.floats("empty_weight", {int64_t{1} << 40, int64_t{1} << 40, 0}, {});
  const std::string why = one_node_refusal(b, "MatMul", {"x", "empty_weight"});
  EXPECT_NE(why.find("empty_weight"), std::string::npos) << why;
  EXPECT_NE(why.find("elements is too many"), std::string::npos) << why;
}

// onnx_import_fuzz: a Softmax node without inputs reached Graph::input_of, whose vector::at threw
// std::out_of_range ("vector::_M_range_check"), which names neither the node nor the input.
TEST(FuzzRegression, OnnxNodeWithoutItsInputIsRefusedByName) {
  graph::testing::OnnxModelBuilder b;
  const std::string why = one_node_refusal(b, "Softmax", {});
  EXPECT_NE(why.find("node 'node1' (Softmax): input 0 is missing"), std::string::npos) << why;
}

// onnx_import_fuzz: a Reshape's constant target extents were multiplied into an int64 unchecked
// (2^58 x (2^32 - 1)): undefined behaviour (UBSan).
TEST(FuzzRegression, OnnxReshapeToExtentsBeyondInt64IsRefused) {
  graph::testing::OnnxModelBuilder b;
  b.ints("target", {2}, {int64_t{1} << 58, (int64_t{1} << 32) - 1});
  const std::string why = one_node_refusal(b, "Reshape", {"x", "target"});
  EXPECT_NE(why.find("node 'node1' (Reshape)"), std::string::npos) << why;
  EXPECT_NE(why.find("multiply beyond any tensor of [1,4]"), std::string::npos) << why;
}

// onnx_import_fuzz: a Concat of scalars passed the axis check (axis 0 is allowed at rank 0) and
// indexed past the end of the empty shape (UBSan).
TEST(FuzzRegression, OnnxConcatOfScalarsIsRefused) {
  graph::testing::OnnxModelBuilder b;
  b.ints("scalar", {}, {3});
  const std::string why = one_node_refusal(b, "Concat", {"scalar", "scalar"});
  EXPECT_NE(why.find("node 'node1' (Concat): input 0 is a scalar"), std::string::npos) << why;
}

// onnx_import_fuzz: a Clip of constants whose min had 3 elements was folded reading min as if
// broadcast to the output [3,4]: a heap-buffer-overflow (ASan).
TEST(FuzzRegression, OnnxClipBoundThatIsNoScalarIsRefused) {
  graph::testing::OnnxModelBuilder b;
  b.floats("w", {3, 4}, std::vector<float>(12, 1.0f)).floats("lo", {3}, {0, 0, 0});
  const std::string why = one_node_refusal(b, "Clip", {"w", "lo"});
  EXPECT_NE(why.find("node 'node1' (Clip): input 1 (min) must be a scalar, got [3]"), std::string::npos) << why;
}

// onnx_import_fuzz: a constant Add of an int64 tensor and a float one was folded reading the float
// input's int64 elements, of which it has none (heap-buffer-overflow, ASan).
TEST(FuzzRegression, OnnxConstantAddOfMixedTypesIsRefused) {
  graph::testing::OnnxModelBuilder b;
  b.input("x", {1, 4});
  b.ints("a", {2}, {1, 2}).floats("f", {2}, {0.0f, 2.0f});
  b.node("Add", {"a", "f"}, {"shape"}, "add1");
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape1");
  b.output("y");
  const std::string why = refusal([&] { graph::import_onnx_bytes(b.bytes(), "model.onnx"); });
  EXPECT_NE(why.find("node 'add1' (Add)"), std::string::npos) << why;
}

// onnx_import_fuzz: a MaxPool whose 'strides' attribute is an empty list read past its end (UBSan).
TEST(FuzzRegression, OnnxPoolWithShortStridesIsRefused) {
  graph::testing::OnnxModelBuilder b;
  b.input("x", {1, 2, 4, 4});
  auto& pool = b.node("MaxPool", {"x"}, {"y"}, "pool1");
  graph::testing::OnnxModelBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  graph::testing::OnnxModelBuilder::attr(pool, "strides", std::vector<int64_t>{});
  b.output("y");
  const std::string why = refusal([&] { graph::import_onnx_bytes(b.bytes(), "model.onnx"); });
  EXPECT_NE(why.find("node 'pool1' (MaxPool, opset 13): attribute 'strides' = [] does not have 2 axes"),
            std::string::npos)
      << why;
}

// worker_frames_fuzz: a frame header announcing 2 GiB made read_frame allocate all of it before
// reading a byte (libFuzzer: out-of-memory); now the buffer grows only with the bytes that come.
TEST(FuzzRegression, FrameHeaderAloneAllocatesNothingLarge) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const uint32_t kind = 1;
  const uint64_t claimed = uint64_t{1} << 31;
  ASSERT_EQ(::write(fds[1], &kind, sizeof kind), static_cast<ssize_t>(sizeof kind));
  ASSERT_EQ(::write(fds[1], &claimed, sizeof claimed), static_cast<ssize_t>(sizeof claimed));
  ::close(fds[1]);
  uint32_t got_kind = 0;
  std::vector<uint8_t> payload;
  EXPECT_FALSE(runtime::wire::read_frame(fds[0], &got_kind, &payload));
  EXPECT_LE(payload.capacity(), size_t{1} << 20);
  ::close(fds[0]);
}

// worker_frames_fuzz: a setup frame with no expected output or no tolerances (empty blobs) made
// decode_setup call memcpy with a null destination: undefined behaviour (UBSan).
TEST(FuzzRegression, WorkerSetupWithEmptyBlobsDecodes) {
  runtime::WorkloadSetup s;
  runtime::TensorSpec vector2;
  vector2.shape = {2};
  s.args = {vector2, vector2};
  s.num_inputs = 1;
  s.expected = {1.0f, 2.0f};
  s.tolerance = {0.0f, 0.0f};
  const runtime::WorkloadSetup back = runtime::worker_protocol::decode_setup(runtime::worker_protocol::encode_setup(s));
  EXPECT_EQ(back.expected, s.expected);
  EXPECT_EQ(back.tolerance, s.tolerance);
  s.expected.clear();
  s.tolerance.clear();
  EXPECT_TRUE(runtime::worker_protocol::decode_setup(runtime::worker_protocol::encode_setup(s)).expected.empty());
  // An expected output without its tolerance (the empty blob) is refused: the check reads both.
  s.expected = {1.0f, 2.0f};
  EXPECT_THROW(runtime::worker_protocol::decode_setup(runtime::worker_protocol::encode_setup(s)), std::runtime_error);
}

}  // namespace
}  // namespace tf

// Sequences resolved when the model is built (graph/ops/sequence.cc): SequenceConstruct, Insert,
// Erase, At, Length, ConcatFromSequence (concat and stack) and SplitToSequence (sizes, chunks,
// keepdims=0) become tensor ops and constants; positions computed at run time and sequence
// outputs are refused by name. Expected values are written from ONNX's definitions by hand.
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

HostTensor floats(Shape shape, const std::vector<float>& v) { return HostTensor::floats(std::move(shape), v); }

TEST(OnnxSequence, InsertEraseAtAndLengthFollowTheListAtBuildTime) {
  OnnxModelBuilder b(13);
  b.input("x", {2}).input("y", {2}).input("z", {2});
  b.ints("front", {}, {0}).ints("last", {}, {-1}).ints("second", {}, {1});
  b.node("SequenceConstruct", {"x", "y"}, {"s1"});         // [x, y]
  b.node("SequenceInsert", {"s1", "z", "front"}, {"s2"});  // [z, x, y]
  b.node("SequenceInsert", {"s2", "x"}, {"s3"});           // [z, x, y, x]
  b.node("SequenceErase", {"s3", "second"}, {"s4"});       // [z, y, x]
  b.node("SequenceAt", {"s4", "last"}, {"at_last"});       // x
  b.node("SequenceAt", {"s4", "front"}, {"at_front"});     // z
  b.node("SequenceLength", {"s4"}, {"length"});
  b.node("SequenceInsert", {"s1", "z", "last"}, {"s5"});  // [x, z, y]: -1 counts back from the end
  b.node("SequenceAt", {"s5", "second"}, {"inserted"});   // z
  b.output("at_last").output("at_front").output("length").output("inserted");
  const HostTensors out =
      run_typed(b, {{"x", floats({2}, {1, 2})}, {"y", floats({2}, {3, 4})}, {"z", floats({2}, {5, 6})}});
  expect_output(out, "at_last", {2}, {1, 2});
  expect_output(out, "at_front", {2}, {5, 6});
  expect_output(out, "length", {}, {3});
  expect_output(out, "inserted", {2}, {5, 6});
  EXPECT_EQ(out.at("length").dtype, DType::Int64);
}

TEST(OnnxSequence, ConcatFromSequenceConcatenatesOrStacks) {
  OnnxModelBuilder b(13);
  b.input("x", {1, 2}).input("y", {1, 2});
  b.node("SequenceConstruct", {"x", "y"}, {"s"});
  OnnxModelBuilder::attr(b.node("ConcatFromSequence", {"s"}, {"joined"}), "axis", int64_t{1});
  auto& stack = b.node("ConcatFromSequence", {"s"}, {"stacked"});
  OnnxModelBuilder::attr(stack, "axis", int64_t{-1});
  OnnxModelBuilder::attr(stack, "new_axis", int64_t{1});
  b.output("joined").output("stacked");
  const HostTensors out = run_typed(b, {{"x", floats({1, 2}, {1, 2})}, {"y", floats({1, 2}, {3, 4})}});
  expect_output(out, "joined", {1, 4}, {1, 2, 3, 4});
  expect_output(out, "stacked", {1, 2, 2}, {1, 3, 2, 4});  // stacked[0, j, k] = (k ? y : x)[0, j]
}

TEST(OnnxSequence, SplitToSequenceBySizesChunksOrSqueezedRows) {
  OnnxModelBuilder b(13);
  b.input("x", {3, 2});
  b.ints("sizes", {2}, {1, 2}).ints("chunk", {}, {2}).ints("last", {}, {-1});
  b.node("SplitToSequence", {"x", "sizes"}, {"by_sizes"});
  b.node("SequenceAt", {"by_sizes", "last"}, {"last_piece"});  // rows 1..2
  b.node("SplitToSequence", {"x", "chunk"}, {"by_chunk"});
  b.node("SequenceAt", {"by_chunk", "last"}, {"last_chunk"});  // row 2 only: the last chunk is smaller
  b.node("SequenceLength", {"by_chunk"}, {"chunks"});
  auto& rows = b.node("SplitToSequence", {"x"}, {"rows"});
  OnnxModelBuilder::attr(rows, "keepdims", int64_t{0});
  b.node("SequenceAt", {"rows", "last"}, {"last_row"});
  b.output("last_piece").output("last_chunk").output("chunks").output("last_row");
  const HostTensors out = run_typed(b, {{"x", floats({3, 2}, {0, 1, 2, 3, 4, 5})}});
  expect_output(out, "last_piece", {2, 2}, {2, 3, 4, 5});
  expect_output(out, "last_chunk", {1, 2}, {4, 5});
  expect_output(out, "chunks", {}, {2});
  expect_output(out, "last_row", {2}, {4, 5});
}

TEST(OnnxSequence, RuntimePositionsOutOfRangePositionsAndSequenceOutputsAreRefusedByName) {
  {
    OnnxModelBuilder b(13);
    b.input("x", {2}).input("p", {}, onnx::TensorProto::INT64);
    b.node("SequenceConstruct", {"x"}, {"s"});
    b.node("SequenceAt", {"s", "p"}, {"y"});
    b.output("y");
    const std::string e = import_error(b);
    EXPECT_NE(e.find("SequenceAt"), std::string::npos) << e;
    EXPECT_NE(e.find("'p' (position) must be a constant"), std::string::npos) << e;
  }
  {
    OnnxModelBuilder b(13);
    b.input("x", {2});
    b.ints("far", {}, {2});
    b.node("SequenceConstruct", {"x", "x"}, {"s"});
    b.node("SequenceAt", {"s", "far"}, {"y"});
    b.output("y");
    const std::string e = import_error(b);
    EXPECT_NE(e.find("position 2 is outside [-2, 1]"), std::string::npos) << e;
  }
  {
    OnnxModelBuilder b(13);
    b.input("x", {2});
    b.node("SequenceConstruct", {"x"}, {"s"});
    b.output("s");
    const std::string e = import_error(b);
    EXPECT_NE(e.find("output 's' is a sequence"), std::string::npos) << e;
  }
  {
    OnnxModelBuilder b(13);
    b.input("x", {2}).input("i", {2}, onnx::TensorProto::INT64);
    b.node("SequenceConstruct", {"x", "i"}, {"s"});
    b.node("SequenceLength", {"s"}, {"n"});
    b.output("n");
    const std::string e = import_error(b);
    EXPECT_NE(e.find("element 'i' is int64 but the sequence holds float32"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace tf::graph

// Einsum (graph/ops/einsum.cc) built into compiled models and run, against a reference that walks
// every assignment of the equation's letters and sums the products (ONNX's definition), for the
// equations models write: batched matmuls, attention scores, matrix-vector, inner and outer
// products, a transpose, a sum, a letter only one operand has. Diagonals, ellipses and three
// operands are refused by name.
#include <gtest/gtest.h>

#include <map>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "tests/graph_evaluator.h"
#include "tests/onnx_model_builder.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;

struct Operand {
  Operand(std::string t, Shape s) : term(std::move(t)), shape(std::move(s)) {}
  std::string term;
  Shape shape;
  std::vector<float> values;  // filled by the test
};

// out[assignment of out's letters] = sum over the other letters of the operands' product.
std::vector<double> reference(const std::vector<Operand>& ops, const std::string& out,
                              const std::map<char, int64_t>& extent) {
  std::vector<char> letters;
  for (const auto& [c, e] : extent) letters.push_back(c);
  std::map<char, int64_t> at;
  for (char c : letters) at[c] = 0;
  int64_t out_size = 1;
  for (char c : out) out_size *= extent.at(c);
  std::vector<double> result(static_cast<size_t>(out_size), 0.0);
  auto offset = [&](const std::string& term) {
    int64_t o = 0;
    for (char c : term) o = o * extent.at(c) + at[c];
    return o;
  };
  while (true) {
    double p = 1;
    for (const auto& op : ops) p *= op.values[static_cast<size_t>(offset(op.term))];
    result[static_cast<size_t>(offset(out))] += p;
    size_t k = 0;
    for (; k < letters.size(); ++k) {  // the next assignment, odometer-wise
      if (++at[letters[k]] < extent.at(letters[k])) break;
      at[letters[k]] = 0;
    }
    if (k == letters.size()) break;
  }
  return result;
}

void expect_einsum(const std::string& equation, std::vector<Operand> ops, const std::string& out,
                   const Shape& out_shape) {
  SCOPED_TRACE(equation);
  OnnxModelBuilder b(13);
  std::map<char, int64_t> extent;
  runtime::model::HostTensors feeds;
  std::vector<std::string> names;
  uint32_t seed = 7;
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    ops[i].values = testing::random_tensor(ops[i].shape, seed++).f32;
    for (size_t k = 0; k < ops[i].term.size(); ++k) extent[ops[i].term[k]] = ops[i].shape[k];
    b.input(name, ops[i].shape);
    feeds[name] = HostTensor::floats(ops[i].shape, ops[i].values);
    names.push_back(name);
  }
  OnnxModelBuilder::attr(b.node("Einsum", names, {"y"}), "equation", equation);
  b.output("y");
  BuildOptions options;
  options.target = codegen::host_target();
  runtime::model::Executor exec(build_model(plan_graph(import_onnx_bytes(b.bytes(), "einsum.onnx")), options));
  const HostTensor got = exec.run(feeds).at("y");
  EXPECT_EQ(got.shape, out_shape);
  const std::vector<double> want = reference(ops, out, extent);
  ASSERT_EQ(got.elements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.at(static_cast<int64_t>(i)), want[i], 1e-4 * (1 + std::abs(want[i]))) << i;
}

TEST(OnnxEinsum, MatmulLikeEquationsAgreeWithTheDefinition) {
  expect_einsum("bij,bjk->bik", {{"bij", {2, 3, 4}}, {"bjk", {2, 4, 5}}}, "bik", {2, 3, 5});
  expect_einsum("bhqd,bhkd->bhqk", {{"bhqd", {1, 2, 3, 4}}, {"bhkd", {1, 2, 5, 4}}}, "bhqk", {1, 2, 3, 5});
  expect_einsum("ij,j->i", {{"ij", {3, 4}}, {"j", {4}}}, "i", {3});
  expect_einsum("ij,kj", {{"ij", {3, 4}}, {"kj", {5, 4}}}, "ik", {3, 5});  // implicit output: letters seen once
  expect_einsum("i,j->ij", {{"i", {3}}, {"j", {4}}}, "ij", {3, 4});
  expect_einsum("i,i", {{"i", {6}}, {"i", {6}}}, "", {});
  expect_einsum("ijk,ikl->lj", {{"ijk", {2, 3, 4}}, {"ikl", {2, 4, 5}}}, "lj", {5, 3});
  expect_einsum("ij,jk->k", {{"ij", {3, 4}}, {"jk", {4, 2}}}, "k", {2});  // i only in the first: summed first
}

TEST(OnnxEinsum, OneOperandTransposesAndSums) {
  expect_einsum("ij->ji", {{"ij", {3, 4}}}, "ji", {4, 3});
  expect_einsum("ijk->ki", {{"ijk", {2, 3, 4}}}, "ki", {4, 2});
  expect_einsum("ij->", {{"ij", {3, 4}}}, "", {});
}

TEST(OnnxEinsum, DiagonalsEllipsesThreeOperandsAndMismatchedExtentsAreRefusedByName) {
  auto error_of = [](const std::string& equation, const std::vector<Shape>& shapes) {
    OnnxModelBuilder b(13);
    std::vector<std::string> names;
    for (size_t i = 0; i < shapes.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      b.input(names.back(), shapes[i]);
    }
    OnnxModelBuilder::attr(b.node("Einsum", names, {"y"}), "equation", equation);
    b.output("y");
    try {
      import_onnx_bytes(b.bytes(), "einsum.onnx");
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("ii->i", {{3, 3}}).find("letter 'i' repeats in one operand"), std::string::npos);
  EXPECT_NE(error_of("...ij->...ji", {{2, 3, 4}}).find("an ellipsis is not supported"), std::string::npos);
  EXPECT_NE(error_of("i,i,i->i", {{2}, {2}, {2}}).find("Einsum of 3 operands is not supported"), std::string::npos);
  EXPECT_NE(error_of("ij,jk->ik", {{2, 3}, {4, 5}}).find("letter 'j' is 3 in one place and 4 in another"),
            std::string::npos);
  EXPECT_NE(error_of("ij->ik", {{2, 3}}).find("output letter 'k' is in no input"), std::string::npos);
  EXPECT_NE(error_of("ijk->i", {{2, 3}}).find("term 'ijk' names 3 axes"), std::string::npos);
}

}  // namespace
}  // namespace tf::graph

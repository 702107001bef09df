// Reductions over any axes (every Reduce* kind), softmax / log_softmax / hardmax and argmax /
// argmin over any axis: real LLVM codegen against the double-precision references on rows,
// columns, spatial, alternating and all-axes reductions, extent-1 axes, and against ONNX's node
// tests; shapes that make no sense refused naming the extent.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "compiler/error.h"
#include "compiler/ops/reduce_kind.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"
#include "tests/onnx_node_case.h"
#include "tests/op_kernel_run.h"

namespace tf {
namespace {

using testing_support::NodeCase;

void expect_configs_correct(const std::string& op, const std::string& shape, uint64_t seed = 1) {
  testing_support::expect_configs_correct(op, shape, testing_support::kEveryConfig, seed, /*corners=*/false);
}

std::string refusal(const std::string& op, const std::string& text) {
  try {
    ops::check_workload({op, ops::parse_shape(op, text)});
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

class ReduceOps : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

// Rows, columns, NCHW spatial, reduced-kept-reduced (rows then the outer group), kept-reduced-kept
// (columns over a middle axis), alternating on rank 4, every axis, none, reduced extent-1 axes, rank 6.
const char* const kReduceShapes[] = {
    "rank=2,d0=7,d1=33,r1=1",
    "rank=2,d0=37,d1=21,r0=1",
    "rank=4,d0=2,d1=3,d2=5,d3=7,r2=1,r3=1",
    "rank=3,d0=4,d1=5,d2=19,r0=1,r2=1",
    "rank=3,d0=3,d1=9,d2=20,r1=1",
    "rank=4,d0=3,d1=4,d2=5,d3=6,r0=1,r2=1",
    "rank=3,d0=3,d1=4,d2=17,r0=1,r1=1,r2=1",
    "rank=2,d0=3,d1=18",
    "rank=3,d0=4,d1=1,d2=6,r1=1",
    "rank=1,d0=1,r0=1",
    "rank=6,d0=2,d1=1,d2=3,d3=2,d4=5,d5=3,r1=1,r3=1,r4=1",
};

TEST_F(ReduceOps, EveryKindOnEveryLayoutMatchesTheReference) {
  for (ops::ReduceOp op : ops::kReduceOps) {
    if (op == ops::ReduceOp::LogSum) continue;  // needs positive sums: below
    for (const char* s : kReduceShapes) expect_configs_correct(ops::reduce_op_info(op).name, s);
  }
}

TEST_F(ReduceOps, LogSumOfPositiveInputs) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> pos(0.01f, 2.0f);
  for (const char* s : kReduceShapes) {
    const auto shape = ops::parse_shape("reduce_log_sum", s);
    std::vector<float> x(
        static_cast<size_t>(ops::element_count(ops::find_operator("reduce_log_sum").input_shapes(shape)[0])));
    for (float& v : x) v = pos(rng);
    testing_support::expect_kernel_matches_reference("reduce_log_sum", s, {x});
  }
}

TEST_F(ReduceOps, LargeRowsAndColumnsRunInParallel) {
  expect_configs_correct("reduce_mean", "rows=300,cols=200");
  expect_configs_correct("reduce_max", "rank=2,d0=500,d1=130,r0=1");
  expect_configs_correct("reduce_log_sum_exp", "rank=4,d0=2,d1=64,d2=15,d3=17,r2=1,r3=1");
  EXPECT_EQ(ops::parse_shape("reduce_mean", "rows=3,cols=5"), ops::parse_shape("reduce_mean", "rank=2,d0=3,d1=5,r1=1"));
  EXPECT_EQ(
      ops::find_operator("reduce_sum").output_shape(ops::parse_shape("reduce_sum", "rank=3,d0=2,d1=3,d2=4,r0=1,r2=1")),
      (std::vector<int64_t>{1, 3, 1}));
}

TEST_F(ReduceOps, SoftmaxFamilyOnAnyAxis) {
  for (const char* op : {"softmax", "log_softmax", "hardmax"}) {
    for (const char* s :
         {"rows=1,cols=1", "rows=3,cols=7", "rows=4,cols=33", "rows=2,cols=5,inner=3", "rows=1,cols=9,inner=40",
          "rows=6,cols=1,inner=17", "rows=130,cols=61", "rows=20,cols=30,inner=70"}) {
      expect_configs_correct(op, s);
    }
  }
  // Ties: hardmax marks the first maximum only. X[1, 4, 2]: column 0 is 1 3 2 3, column 1 is 5 5 2 1.
  const auto y = testing_support::run_op_kernel("hardmax", "rows=1,cols=4,inner=2", {{1, 5, 3, 5, 2, 2, 3, 1}});
  EXPECT_EQ(y, (std::vector<float>{0, 1, 1, 0, 0, 0, 0, 0}));
}

TEST_F(ReduceOps, ArgmaxArgminFirstAndLastIndex) {
  for (const char* op : {"argmax", "argmin"}) {
    for (const char* s : {"rows=1,cols=1", "rows=3,cols=7", "rows=4,cols=40,last=1", "rows=2,cols=5,inner=3",
                          "rows=3,cols=6,inner=33,last=1", "rows=200,cols=300"}) {
      expect_configs_correct(op, s);
    }
  }
  const std::vector<float> ties = {2, 7, 7, 1, 1, 2};
  EXPECT_EQ(testing_support::run_op_kernel("argmax", "rows=1,cols=6", {ties}), (std::vector<float>{1}));
  EXPECT_EQ(testing_support::run_op_kernel("argmax", "rows=1,cols=6,last=1", {ties}), (std::vector<float>{2}));
  EXPECT_EQ(testing_support::run_op_kernel("argmin", "rows=1,cols=6", {ties}), (std::vector<float>{3}));
  EXPECT_EQ(testing_support::run_op_kernel("argmin", "rows=1,cols=6,last=1", {ties}), (std::vector<float>{4}));
}

TEST_F(ReduceOps, NonsenseShapesAreRefusedNamingTheExtent) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"reduce_sum", "rank=2,d0=3,d1=4,r1=2", "r1"},
      {"reduce_sum", "rank=2,d0=3,d1=0,r1=1", "d1"},
      {"reduce_sum", "rank=7,d0=3", "rank"},
      {"reduce_sum", "rank=2,d0=3,r1=1", "d1"},
      {"reduce_sum", "rank=2,d0=3,d1=4,x=1", "'x'"},
      {"softmax", "rows=0,cols=5", "rows"},
      {"log_softmax", "rows=2,cols=5,inner=-1", "inner"},
      {"argmax", "rows=2,cols=5,last=2", "last"},
      {"argmin", "rows=2,cols=0", "cols"},
  };
  for (const auto& [op, text, field] : cases) {
    const std::string why = refusal(op, text);
    EXPECT_NE(why.find(field), std::string::npos) << op << " " << text << ": '" << why << "' does not name " << field;
  }
  const auto pos = ops::find_operator("reduce_sum").shape_names().size();
  std::vector<int64_t> past_rank(pos, 1);
  past_rank[0] = 2;
  for (size_t k = 7; k < pos; ++k) past_rank[k] = 0;
  past_rank[9] = 1;  // r2 = 1 on a rank-2 tensor
  try {
    ops::check_workload({"reduce_sum", past_rank});
    ADD_FAILURE() << "r2 past the rank accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("r2"), std::string::npos) << e.what();
  }
}

TEST_F(ReduceOps, NamedShapesReadBackFromTheirText) {
  for (const char* s : kReduceShapes) {
    const auto shape = ops::parse_shape("reduce_l2", s);
    EXPECT_EQ(ops::parse_shape("reduce_l2", ops::find_operator("reduce_l2").shape_text(shape)), shape) << s;
  }
  const auto sm = ops::parse_shape("argmax", "rows=2,cols=5,inner=3,last=1");
  EXPECT_EQ(ops::parse_shape("argmax", ops::find_operator("argmax").shape_text(sm)), sm);
}

// ---- ONNX's node tests through the ops, as the graph side will lower them ----

void expect_matches(const std::vector<float>& got, const graph::Tensor& expected, const std::string& name) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), expected.size()) << name;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = expected.at(static_cast<int64_t>(i));
    ASSERT_LE(std::fabs(got[i] - e), 1e-4 * (1 + std::fabs(e))) << name << " at " << i;
  }
}

std::string reduce_shape(const NodeCase& c) {
  const auto& dims = c.shape(0);
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (auto in = c.ints(1)) axes = *in;
  const bool noop = axes.empty() && c.attr_int("noop_with_empty_axes", 0) == 1;
  std::string s = "rank=" + std::to_string(rank);
  for (int64_t k = 0; k < rank; ++k) s += ",d" + std::to_string(k) + "=" + std::to_string(dims[k]);
  for (int64_t k = 0; k < rank; ++k) {
    bool r = axes.empty() && !noop;
    for (int64_t a : axes) r |= (a < 0 ? a + rank : a) == k;
    if (r) s += ",r" + std::to_string(k) + "=1";
  }
  return s;
}

// rows,cols,inner of axis (negative from the end) in input 0's shape.
std::string axis_shape(const NodeCase& c, int64_t axis) {
  const auto& d = c.shape(0);
  if (axis < 0) axis += static_cast<int64_t>(d.size());
  const size_t a = static_cast<size_t>(axis);
  return "rows=" + std::to_string(testing_support::extent_product(d, 0, a)) + ",cols=" + std::to_string(d[a]) +
         ",inner=" + std::to_string(testing_support::extent_product(d, a + 1, d.size()));
}

TEST_F(ReduceOps, OnnxNodeTests) {
  if (!std::filesystem::exists(graph::testing::kNodeTestsDir)) GTEST_SKIP() << "libonnx-testdata is not installed";
  const std::map<std::string, std::string> reduce_ops = {{"ReduceSum", "reduce_sum"},
                                                         {"ReduceMean", "reduce_mean"},
                                                         {"ReduceMax", "reduce_max"},
                                                         {"ReduceMin", "reduce_min"},
                                                         {"ReduceProd", "reduce_prod"},
                                                         {"ReduceL1", "reduce_l1"},
                                                         {"ReduceL2", "reduce_l2"},
                                                         {"ReduceLogSum", "reduce_log_sum"},
                                                         {"ReduceLogSumExp", "reduce_log_sum_exp"},
                                                         {"ReduceSumSquare", "reduce_sum_square"}};
  int checked = 0;
  for (const std::string& name : graph::testing::list_node_tests()) {
    const bool reduce = name.rfind("test_reduce_", 0) == 0, arg = name.rfind("test_arg", 0) == 0;
    const bool soft = (name.rfind("test_softmax", 0) == 0 || name.rfind("test_logsoftmax", 0) == 0 ||
                       name.rfind("test_hardmax", 0) == 0) &&
                      name.find("_expanded") == std::string::npos;
    if (!reduce && !arg && !soft) continue;
    NodeCase c;
    try {
      c = testing_support::load_node_case(name);
    } catch (const CompileError&) {
      continue;  // float64 data: the ops are float32
    }
    const std::string& type = c.node.op_type();
    std::string op, shape;
    if (reduce_ops.count(type)) {
      op = reduce_ops.at(type), shape = reduce_shape(c);
    } else if (type == "ArgMax" || type == "ArgMin") {
      op = type == "ArgMax" ? "argmax" : "argmin";
      shape = axis_shape(c, c.attr_int("axis", 0)) + ",last=" + std::to_string(c.attr_int("select_last_index", 0));
    } else if (type == "Softmax" || type == "LogSoftmax" || type == "Hardmax") {
      op = type == "Softmax" ? "softmax" : type == "LogSoftmax" ? "log_softmax" : "hardmax";
      shape = axis_shape(c, c.attr_int("axis", -1));  // these tests are opset 13: one axis
    } else {
      continue;
    }
    SCOPED_TRACE(name + ": " + op + " " + shape);
    expect_matches(testing_support::run_op_kernel(op, shape, {c.floats(0)}), c.outputs[0], name);
    ++checked;
  }
  EXPECT_GE(checked, 120);  // every float32 one of the families (124 today)
}

}  // namespace
}  // namespace tf

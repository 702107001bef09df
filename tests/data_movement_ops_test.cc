// strided_copy (Slice, Pad, Tile), gather, gather_elements, and DepthToSpace / SpaceToDepth as the
// transpose they are; instance_norm, lrn and global_max_pool2d: real LLVM codegen against the
// references (random inputs, every config) and against ONNX's node tests; nonsense refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compiler/error.h"
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

class DataMovementOps : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

TEST_F(DataMovementOps, StridedCopySlicesPadsAndTiles) {
  for (const char* s : {
           "rank=2,d0=5,d1=37,o0=3,o1=12,s0=1,s1=2,t1=3",          // slice with steps
           "rank=2,d0=5,d1=37,o0=5,o1=37,s0=4,s1=36,t0=-1,t1=-1",  // reversed
           "rank=3,d0=4,d1=1,d2=20,o0=2,o1=1,o2=7,s0=3,t0=-2,s2=18,t2=-3",
           "rank=2,mode=1,d0=3,d1=17,o0=6,o1=21,s0=-1,s1=-3",  // constant pad
           "rank=2,mode=1,d0=3,d1=17,o0=2,o1=19,s0=1,s1=-1",   // a crop on one axis, a pad on the other
           "rank=2,mode=2,d0=4,d1=5,o0=9,o1=20,s0=-2,s1=-7",   // edge
           "rank=2,mode=3,d0=4,d1=5,o0=9,o1=20,s0=-2,s1=-9",   // reflect, wider than the input
           "rank=1,mode=3,d0=1,o0=5,s0=-2",                    // reflect of one element
           "rank=3,mode=4,d0=2,d1=3,d2=5,o0=4,o1=3,o2=15",     // tile (2, 1, 3)
           "rank=4,mode=1,d0=1,d1=3,d2=30,d3=40,o0=1,o1=3,o2=32,o3=42,s2=-1,s3=-1",
           "rank=6,mode=4,d0=2,d1=1,d2=3,d3=2,d4=1,d5=3,o0=2,o1=2,o2=3,o3=4,o4=1,o5=7,s5=-1",
       }) {
    expect_configs_correct("strided_copy", s);
  }
  // Reflect about the edge elements, as numpy: [1 2 3] padded (5, 4).
  EXPECT_EQ(testing_support::run_op_kernel("strided_copy", "rank=1,mode=3,d0=3,o0=12,s0=-5", {{1, 2, 3}}),
            (std::vector<float>{2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}));
  EXPECT_EQ(testing_support::run_op_kernel("strided_copy", "rank=1,mode=1,d0=3,o0=6,s0=-2", {{1, 2, 3}, {9}}),
            (std::vector<float>{9, 9, 1, 2, 3, 9}));
}

TEST_F(DataMovementOps, GatherAlongAnyAxisWithNegativeAndOutOfRangeIndices) {
  for (const char* op : {"gather", "gather_elements"}) {
    for (const char* s : {"rows=1,cols=1,count=1", "rows=3,cols=7,count=5", "rows=2,cols=6,inner=17,count=4",
                          "rows=40,cols=30,inner=33,count=20"}) {
      expect_configs_correct(op, s);  // random indices in [-1, 1): 0 and the last
    }
  }
  const std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // [2, 3, 2]
  EXPECT_EQ(testing_support::run_op_kernel("gather", "rows=2,cols=3,inner=2,count=3", {x, {2, -3, 9}}),
            (std::vector<float>{4, 5, 0, 1, 4, 5, 10, 11, 6, 7, 10, 11}));
  testing_support::expect_kernel_matches_reference("gather_elements", "rows=2,cols=3,inner=2,count=2",
                                                   {x, {2, -1, 0, 1, -3, 7, 1, 1}});
}

TEST_F(DataMovementOps, NormsAndGlobalMaxPool) {
  for (const char* s :
       {"c=1,spatial=1", "c=3,spatial=17", "n=2,c=5,spatial=64", "n=1,c=64,spatial=3136,eps_e12=1000"}) {
    expect_configs_correct("instance_norm", s);
  }
  for (const char* s : {"c=1,spatial=5,size=1", "c=7,spatial=19,size=3",
                        "n=2,c=16,spatial=40,size=5,alpha_e9=2000000,beta_e9=500000000,bias_e9=2000000000",
                        "c=9,spatial=3,size=4,beta_e9=1000000000"}) {
    expect_configs_correct("lrn", s);
  }
  for (const char* s : {"c=5,h=7,w=7", "n=2,c=3,h=4,w=5", "c=1,h=1,w=1", "c=64,h=14,w=14"})
    expect_configs_correct("global_max_pool2d", s);
}

TEST_F(DataMovementOps, NonsenseShapesAreRefusedNamingTheExtent) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"strided_copy", "rank=1,d0=5,o0=3,s0=3", "s0"},        // reads 3..5 of 5, mode none
      {"strided_copy", "rank=1,d0=5,o0=3,s0=4,t0=-3", "s0"},  // reads 4..-2
      {"strided_copy", "rank=1,d0=5,o0=3,t0=0", "t0"},
      {"strided_copy", "rank=2,mode=5,d0=5,d1=2,o0=3,o1=2", "mode"},
      {"strided_copy", "rank=2,d0=5,d1=2,o0=0,o1=2", "o0"},
      {"strided_copy", "rank=2,d0=5,o0=1,o1=2", "d1"},
      {"strided_copy", "rank=1,mode=1,d0=5,o0=3,s0=1", "mode"},  // constant pads nothing: mode 0
      {"gather", "rows=2,cols=0,count=3", "cols"},
      {"gather_elements", "rows=2,cols=3", "count"},
      {"instance_norm", "c=3,spatial=0", "spatial"},
      {"instance_norm", "c=3,spatial=4,eps_e12=2000000000000", "eps_e12"},
      {"lrn", "c=3,spatial=4,size=0", "size"},
      {"lrn", "c=3,spatial=4,size=3,beta_e9=0", "beta_e9"},
      {"lrn", "c=3,spatial=4,size=3,bias_e9=0", "bias_e9"},
      {"lrn", "c=3,spatial=4,size=3,alpha_e9=-1", "alpha_e9"},
      {"global_max_pool2d", "c=3,h=0,w=4", "h "},
  };
  for (const auto& [op, text, field] : cases) {
    const std::string why = refusal(op, text);
    EXPECT_NE(why.find(field), std::string::npos) << op << " " << text << ": '" << why << "' does not name " << field;
  }
  for (const char* s : {"rank=2,mode=1,d0=3,d1=17,o0=6,o1=21,s0=-1,s1=-3", "rank=1,d0=5,o0=5,s0=4,t0=-1"}) {
    const auto shape = ops::parse_shape("strided_copy", s);
    EXPECT_EQ(ops::parse_shape("strided_copy", ops::find_operator("strided_copy").shape_text(shape)), shape) << s;
  }
}

// ---- ONNX's node tests, lowered as the graph side will ----

void expect_matches(const std::vector<float>& got, const graph::Tensor& expected, const std::string& name) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), expected.size()) << name;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = expected.at(static_cast<int64_t>(i));
    ASSERT_LE(std::fabs(got[i] - e), 1e-4 * (1 + std::fabs(e))) << name << " at " << i;
  }
}

std::string ranked(const std::string& lead, const graph::Shape& d, const graph::Shape& o,
                   const std::vector<int64_t>& start, const std::vector<int64_t>& step) {
  std::string s = "rank=" + std::to_string(d.size()) + "," + lead;
  for (size_t k = 0; k < d.size(); ++k) s += ",d" + std::to_string(k) + "=" + std::to_string(d[k]);
  for (size_t k = 0; k < d.size(); ++k) s += ",o" + std::to_string(k) + "=" + std::to_string(o[k]);
  for (size_t k = 0; k < d.size(); ++k)
    s += ",s" + std::to_string(k) + "=" + std::to_string(start[k]) + ",t" + std::to_string(k) + "=" +
         std::to_string(step[k]);
  return s;
}

int64_t axis_of(int64_t a, size_t rank) { return a < 0 ? a + static_cast<int64_t>(rank) : a; }

// ONNX Slice (opset 10+) as strided_copy: starts and ends clamped per the spec; empty: nullopt.
std::optional<std::string> slice_shape(const NodeCase& c) {
  const auto& d = c.shape(0);
  std::vector<int64_t> start(d.size(), 0), step(d.size(), 1);
  graph::Shape o = d;
  const auto starts = *c.ints(1), ends = *c.ints(2);
  std::vector<int64_t> axes = c.ints(3).value_or(std::vector<int64_t>{});
  std::vector<int64_t> steps = c.ints(4).value_or(std::vector<int64_t>(starts.size(), 1));
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  for (size_t n = 0; n < axes.size(); ++n) {
    const size_t k = static_cast<size_t>(axis_of(axes[n], d.size()));
    const int64_t dim = d[k], t = steps[n];
    int64_t s = starts[n] < 0 ? starts[n] + dim : starts[n], e = ends[n] < 0 ? ends[n] + dim : ends[n];
    if (t > 0) {
      s = std::clamp<int64_t>(s, 0, dim), e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1), e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    const int64_t count = t > 0 ? (e - s + t - 1) / t : (s - e + (-t) - 1) / (-t);
    if (count <= 0) return std::nullopt;
    start[k] = s, step[k] = t, o[k] = count;
  }
  return ranked("mode=0", d, o, start, step);
}

TEST_F(DataMovementOps, OnnxNodeTests) {
  if (!std::filesystem::exists(graph::testing::kNodeTestsDir)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  auto check = [&](const std::string& name, const std::string& op, const std::string& shape,
                   const std::vector<std::vector<float>>& in, const graph::Tensor& expected) {
    SCOPED_TRACE(name + ": " + op + " " + shape);
    expect_matches(testing_support::run_op_kernel(op, shape, in), expected, name);
    ++checked;
  };
  for (const char* name :
       {"test_slice", "test_slice_default_axes", "test_slice_default_steps", "test_slice_end_out_of_bounds",
        "test_slice_neg", "test_slice_neg_steps", "test_slice_negative_axes", "test_slice_start_out_of_bounds"}) {
    const NodeCase c = testing_support::load_node_case(name);
    if (auto s = slice_shape(c)) check(name, "strided_copy", *s, {c.floats(0)}, c.outputs[0]);
  }
  for (const char* name : {"test_constant_pad", "test_edge_pad", "test_reflect_pad"}) {
    const NodeCase c = testing_support::load_node_case(name);
    const auto& d = c.shape(0);
    const auto pads = *c.ints(1);
    const std::string mode = c.attr_string("mode", "constant");
    std::vector<int64_t> start(d.size()), step(d.size(), 1);
    graph::Shape o = d;
    for (size_t k = 0; k < d.size(); ++k) start[k] = -pads[k], o[k] = d[k] + pads[k] + pads[k + d.size()];
    const int m = mode == "constant" ? 1 : mode == "edge" ? 2 : 3;
    std::vector<std::vector<float>> in = {c.floats(0)};
    if (m == 1) in.push_back({c.inputs.size() > 2 && c.inputs[2] ? c.floats(2)[0] : 0.0f});
    check(name, "strided_copy", ranked("mode=" + std::to_string(m), d, o, start, step), in, c.outputs[0]);
  }
  for (const char* name : {"test_tile", "test_tile_precomputed"}) {
    const NodeCase c = testing_support::load_node_case(name);
    const auto& d = c.shape(0);
    const auto reps = *c.ints(1);
    graph::Shape o = d;
    for (size_t k = 0; k < d.size(); ++k) o[k] *= reps[k];
    check(name, "strided_copy",
          ranked("mode=4", d, o, std::vector<int64_t>(d.size(), 0), std::vector<int64_t>(d.size(), 1)), {c.floats(0)},
          c.outputs[0]);
  }
  for (const char* name :
       {"test_gather_0", "test_gather_1", "test_gather_2d_indices", "test_gather_negative_indices",
        "test_gather_elements_0", "test_gather_elements_1", "test_gather_elements_negative_indices"}) {
    const NodeCase c = testing_support::load_node_case(name);
    const auto& d = c.shape(0);
    const size_t a = static_cast<size_t>(axis_of(c.attr_int("axis", 0), d.size()));
    const bool elements = c.node.op_type() == "GatherElements";
    const int64_t count = elements ? c.shape(1)[a] : c.inputs[1]->size();
    std::vector<float> idx;
    const std::vector<int64_t> indices = *c.ints(1);
    for (int64_t v : indices) idx.push_back(static_cast<float>(v));
    const std::string shape = "rows=" + std::to_string(testing_support::extent_product(d, 0, a)) +
                              ",cols=" + std::to_string(d[a]) +
                              ",inner=" + std::to_string(testing_support::extent_product(d, a + 1, d.size())) +
                              ",count=" + std::to_string(count);
    check(name, elements ? "gather_elements" : "gather", shape, {c.floats(0), idx}, c.outputs[0]);
  }
  // DepthToSpace / SpaceToDepth are a transpose of a rank-6 view (no op of their own).
  for (const char* name :
       {"test_depthtospace_crd_mode", "test_depthtospace_crd_mode_example", "test_depthtospace_dcr_mode",
        "test_depthtospace_example", "test_spacetodepth", "test_spacetodepth_example"}) {
    const NodeCase c = testing_support::load_node_case(name);
    const auto& d = c.shape(0);
    const int64_t b = c.attr_int("blocksize", 0), N = d[0], C = d[1], H = d[2], W = d[3];
    std::vector<int64_t> view, perm;
    if (c.node.op_type() == "SpaceToDepth") {
      view = {N, C, H / b, b, W / b, b}, perm = {0, 3, 5, 1, 2, 4};
    } else if (c.attr_string("mode", "DCR") == "DCR") {
      view = {N, b, b, C / (b * b), H, W}, perm = {0, 3, 4, 1, 5, 2};
    } else {
      view = {N, C / (b * b), b, b, H, W}, perm = {0, 1, 4, 2, 5, 3};
    }
    std::string shape = "rank=6";
    for (int k = 0; k < 6; ++k) shape += ",d" + std::to_string(k) + "=" + std::to_string(view[k]);
    for (int k = 0; k < 6; ++k) shape += ",p" + std::to_string(k) + "=" + std::to_string(perm[k]);
    check(name, "transpose", shape, {c.floats(0)}, c.outputs[0]);
  }
  for (const char* name : {"test_instancenorm_epsilon", "test_instancenorm_example"}) {
    const NodeCase c = testing_support::load_node_case(name);
    const auto& d = c.shape(0);
    const std::string shape = "n=" + std::to_string(d[0]) + ",c=" + std::to_string(d[1]) +
                              ",spatial=" + std::to_string(testing_support::extent_product(d, 2, d.size())) +
                              ",eps_e12=" + std::to_string(std::llround(c.attr_float("epsilon", 1e-5f) * 1e12));
    check(name, "instance_norm", shape, {c.floats(0), c.floats(1), c.floats(2)}, c.outputs[0]);
  }
  for (const char* name : {"test_lrn", "test_lrn_default"}) {
    const NodeCase c = testing_support::load_node_case(name);
    const auto& d = c.shape(0);
    auto e9 = [](float v) { return std::to_string(std::llround(static_cast<double>(v) * 1e9)); };
    const std::string shape =
        "n=" + std::to_string(d[0]) + ",c=" + std::to_string(d[1]) +
        ",spatial=" + std::to_string(testing_support::extent_product(d, 2, d.size())) +
        ",size=" + std::to_string(c.attr_int("size", 0)) + ",alpha_e9=" + e9(c.attr_float("alpha", 1e-4f)) +
        ",beta_e9=" + e9(c.attr_float("beta", 0.75f)) + ",bias_e9=" + e9(c.attr_float("bias", 1.0f));
    check(name, "lrn", shape, {c.floats(0)}, c.outputs[0]);
  }
  for (const char* name : {"test_globalmaxpool", "test_globalmaxpool_precomputed"}) {
    const NodeCase c = testing_support::load_node_case(name);
    const auto& d = c.shape(0);
    check(name, "global_max_pool2d",
          "n=" + std::to_string(d[0]) + ",c=" + std::to_string(d[1]) + ",h=" + std::to_string(d[2]) +
              ",w=" + std::to_string(d[3]),
          {c.floats(0)}, c.outputs[0]);
  }
  EXPECT_GE(checked, 30);
}

}  // namespace
}  // namespace tf

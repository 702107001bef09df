// The graph level's reductions, row ops and normalizations (graph/ops/reduce.cc, softmax.cc,
// normalize.cc, pool.cc) through compiled kernels: ONNX models imported, planned, built with default
// configs and run, against double-precision references written here. Every Reduce* on any axes
// (axes as attribute or input, keepdims, ranks above the kernels' 6 once adjacent axes merge);
// Softmax, LogSoftmax and Hardmax on a middle axis without transposes; LayerNormalization's Mean and
// InvStdDev; InstanceNormalization, LRN and the global pools beyond rank 4; refusals by name.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using testing::build_error;
using testing::expect_near_all;
using testing::OnnxModelBuilder;
using Outputs = std::map<std::string, std::vector<float>>;

std::vector<float> wavy(int64_t n, float scale, float shift = 0) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f + 0.1f) * scale + shift;
  return v;
}

Outputs run_compiled(const OnnxModelBuilder& b, const Outputs& feeds) { return testing::run_floats(b, feeds); }

// x of `shape` reduced over the axes marked in `reduced`: each output the fold of its elements'
// map, then `post` of it and the count; outputs in row-major order of the kept axes.
std::vector<double> reduce_reference(const std::vector<float>& x, const Shape& shape, const std::vector<bool>& reduced,
                                     double start, const std::function<double(double, double)>& fold,
                                     const std::function<double(double, double)>& post) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t outputs = 1;
  for (int64_t d = 0; d < rank; ++d) outputs *= reduced[d] ? 1 : shape[d];
  std::vector<double> acc(outputs, start);
  std::vector<int64_t> idx(rank, 0);
  for (size_t e = 0; e < x.size(); ++e) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) o = reduced[d] ? o : o * shape[d] + idx[d];
    acc[o] = fold(acc[o], x[e]);
    for (int64_t d = rank; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  const double count = static_cast<double>(x.size()) / static_cast<double>(outputs);
  for (double& a : acc) a = post(a, count);
  return acc;
}

TEST(GraphReductions, EveryReduceOnAnyAxesMatchesTheReference) {
  const Shape shape = {2, 3, 4, 5};
  const std::vector<float> x = wavy(120, 1.5f, 0.2f);
  const auto add = [](double a, double v) { return a + v; };
  const auto same = [](double a, double) { return a; };
  struct Case {
    std::string op;
    int64_t opset;
    std::vector<int64_t> axes;  // empty: every axis
    bool keepdims;
    Shape out;
    double start;
    std::function<double(double, double)> fold, post;
  };
  const std::vector<Case> cases = {
      {"ReduceSum", 13, {0, 2}, false, {3, 5}, 0, add, same},
      {"ReduceMean", 18, {-1, 1}, true, {2, 1, 4, 1}, 0, add, [](double a, double n) { return a / n; }},
      {"ReduceMax", 13, {1, 3}, true, {2, 1, 4, 1}, -INFINITY, [](double a, double v) { return std::max(a, v); }, same},
      {"ReduceMin", 20, {0}, false, {3, 4, 5}, INFINITY, [](double a, double v) { return std::min(a, v); }, same},
      {"ReduceProd", 13, {2}, true, {2, 3, 1, 5}, 1, [](double a, double v) { return a * v; }, same},
      {"ReduceL1", 18, {0, 1, 2}, false, {5}, 0, [](double a, double v) { return a + std::abs(v); }, same},
      {"ReduceL2",
       11,
       {1, 2},
       false,
       {2, 5},
       0,
       [](double a, double v) { return a + v * v; },
       [](double a, double) { return std::sqrt(a); }},
      {"ReduceLogSumExp",
       13,
       {3},
       false,
       {2, 3, 4},
       0,
       [](double a, double v) { return a + std::exp(v); },
       [](double a, double) { return std::log(a); }},
      {"ReduceSumSquare", 13, {}, true, {1, 1, 1, 1}, 0, [](double a, double v) { return a + v * v; }, same},
      {"ReduceLogSum", 13, {0, 3}, true, {1, 3, 4, 1}, 0, add, [](double a, double) { return std::log(std::abs(a)); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " at opset " + std::to_string(c.opset));
    const bool axes_input = c.opset >= (c.op == "ReduceSum" ? 13 : 18) && !c.axes.empty();
    OnnxModelBuilder b(c.opset);
    b.input("x", shape).output("y");
    if (axes_input) b.ints("axes", {static_cast<int64_t>(c.axes.size())}, c.axes);
    const std::string x_in = c.op == "ReduceLogSum" ? "xp" : "x";
    if (c.op == "ReduceLogSum") b.node("Exp", {"x"}, {"xp"}, "positive");  // log of a positive sum
    auto& n =
        b.node(c.op, axes_input ? std::vector<std::string>{x_in, "axes"} : std::vector<std::string>{x_in}, {"y"}, "r");
    if (!axes_input && !c.axes.empty()) OnnxModelBuilder::attr(n, "axes", c.axes);
    OnnxModelBuilder::attr(n, "keepdims", int64_t{c.keepdims});
    const Graph g = import_onnx_bytes(b.bytes(), "reduce.onnx");
    EXPECT_EQ(g.value("y").shape, c.out);
    std::vector<bool> reduced(4, c.axes.empty());
    for (int64_t a : c.axes) reduced[a < 0 ? a + 4 : a] = true;
    std::vector<float> in = x;
    if (c.op == "ReduceLogSum") {
      for (float& v : in) v = std::exp(v);
    }
    expect_near_all(run_compiled(b, {{"x", x}}).at("y"), reduce_reference(in, shape, reduced, c.start, c.fold, c.post),
                    2e-5);
  }
}

// Rank 7 runs once the adjacent kept and reduced axes merge (into [6, 2, 12] here); an input whose
// axes alternate more often than the kernels' 6 is refused naming the shape and the axes.
TEST(GraphReductions, AdjacentAxesMergeBeyondRankSixAndTooManyAlternationsAreRefused) {
  const Shape shape = {2, 3, 2, 1, 1, 3, 4};
  const std::vector<float> x = wavy(element_count(shape), 1.0f);
  OnnxModelBuilder b(13);
  b.input("x", shape).output("y");
  OnnxModelBuilder::attr(b.node("ReduceMean", {"x"}, {"y"}, "r"), "axes", std::vector<int64_t>{2, 3});
  const auto got = run_compiled(b, {{"x", x}}).at("y");
  const std::vector<bool> reduced = {false, false, true, true, false, false, false};
  expect_near_all(
      got,
      reduce_reference(
          x, shape, reduced, 0, [](double a, double v) { return a + v; }, [](double a, double n) { return a / n; }),
      1e-5);

  OnnxModelBuilder alternating(13);
  alternating.input("x", {2, 2, 2, 2, 2, 2, 2}).output("y");
  OnnxModelBuilder::attr(alternating.node("ReduceSum", {"x"}, {"y"}, "r"), "axes", std::vector<int64_t>{0, 2, 4, 6});
  const std::string e = build_error(alternating);
  EXPECT_NE(e.find("node 'r' (ReduceSum)"), std::string::npos) << e;
  EXPECT_NE(e.find("alternates kept and reduced axes 7 times; the reduce kernels take 6"), std::string::npos) << e;
}

// Softmax, LogSoftmax and Hardmax of opset 13 on a middle axis run as one kernel each on
// [rows, cols, inner]: the planned graph has no Transpose.
TEST(GraphReductions, SoftmaxFamilyOnAMiddleAxisRunsWithoutTransposes) {
  const Shape shape = {2, 3, 4};
  std::vector<float> x = wavy(24, 2.0f);
  x[1 * 4 + 2] = x[0 * 4 + 2];  // a tie along axis 1 at (0, *, 2): Hardmax marks the first
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    SCOPED_TRACE(op);
    OnnxModelBuilder b(13);
    b.input("x", shape).output("y");
    OnnxModelBuilder::attr(b.node(op, {"x"}, {"y"}, "sm"), "axis", int64_t{-2});
    EXPECT_EQ(count_ops(plan_graph(import_onnx_bytes(b.bytes(), "sm.onnx"))).count("Transpose"), 0u);
    std::vector<double> want(24);
    for (int64_t r = 0; r < 2; ++r) {
      for (int64_t i = 0; i < 4; ++i) {
        auto at = [&](int64_t c) { return (r * 3 + c) * 4 + i; };
        double mx = -INFINITY, sum = 0;
        int64_t first = 0;
        for (int64_t c = 0; c < 3; ++c) {
          if (x[at(c)] > mx) mx = x[at(c)], first = c;
        }
        for (int64_t c = 0; c < 3; ++c) sum += std::exp(x[at(c)] - mx);
        for (int64_t c = 0; c < 3; ++c) {
          const double v = x[at(c)] - mx;
          want[at(c)] = std::string(op) == "Softmax"      ? std::exp(v) / sum
                        : std::string(op) == "LogSoftmax" ? v - std::log(sum)
                                                          : c == first;
        }
      }
    }
    expect_near_all(run_compiled(b, {{"x", x}}).at("y"), want, 1e-5);
  }
}

// Mean and InvStdDev over the normalized axes (kept as 1s) beside Y, on an axis before the last.
TEST(GraphReductions, LayerNormalizationWritesMeanAndInvStdDevOnAnyAxis) {
  const Shape shape = {2, 3, 4};
  const std::vector<float> x = wavy(24, 3.0f, 1.0f), scale = wavy(12, 1.0f, 1.5f), bias = wavy(12, 0.5f);
  OnnxModelBuilder b(17);
  b.input("x", shape)
      .floats("scale", {3, 4}, scale)
      .floats("bias", {3, 4}, bias)
      .output("y")
      .output("mean")
      .output("inv");
  auto& n = b.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "inv"}, "ln");
  OnnxModelBuilder::attr(n, "axis", int64_t{1});
  OnnxModelBuilder::float_attr(n, "epsilon", 0.1f);
  const Graph g = import_onnx_bytes(b.bytes(), "ln.onnx");
  EXPECT_EQ(g.value("mean").shape, (Shape{2, 1, 1}));
  EXPECT_EQ(g.value("inv").shape, (Shape{2, 1, 1}));
  const auto got = run_compiled(b, {{"x", x}});
  std::vector<double> y(24), mean(2), inv(2);
  for (int64_t r = 0; r < 2; ++r) {
    double m = 0, var = 0;
    for (int64_t i = 0; i < 12; ++i) m += x[r * 12 + i] / 12.0;
    for (int64_t i = 0; i < 12; ++i) var += (x[r * 12 + i] - m) * (x[r * 12 + i] - m) / 12.0;
    mean[r] = m, inv[r] = 1 / std::sqrt(var + 0.1f);
    for (int64_t i = 0; i < 12; ++i) y[r * 12 + i] = (x[r * 12 + i] - m) * inv[r] * scale[i] + bias[i];
  }
  expect_near_all(got.at("y"), y, 1e-5);
  expect_near_all(got.at("mean"), mean, 1e-5);
  expect_near_all(got.at("inv"), inv, 1e-5);

  OnnxModelBuilder broadcast_scale(17);
  broadcast_scale.input("x", shape).floats("scale", {4}, wavy(4, 1.0f)).output("y");
  OnnxModelBuilder::attr(broadcast_scale.node("LayerNormalization", {"x", "scale"}, {"y"}, "ln"), "axis", int64_t{1});
  const std::string e = build_error(broadcast_scale);
  EXPECT_NE(e.find("input 1 'scale' has shape [4]; one value per normalized element [3,4] is supported"),
            std::string::npos)
      << e;
}

// InstanceNormalization (version 6, at opset 7) and LRN on [N, C, D1, D2], the global pools on rank 3
// and 5: spatial axes flattened into the kernels' planes.
TEST(GraphReductions, InstanceNormLrnAndGlobalPoolsFlattenTheSpatialAxes) {
  const Shape shape = {2, 3, 2, 5};
  const int64_t plane = 10;
  const std::vector<float> x = wavy(60, 2.0f, 0.5f), scale = {0.5f, 1.0f, -2.0f}, bias = {0.1f, 0.0f, 0.3f};
  OnnxModelBuilder in6(7);
  in6.input("x", shape).floats("scale", {3}, scale).floats("bias", {3}, bias).output("y");
  OnnxModelBuilder::float_attr(in6.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"}, "in"), "epsilon",
                               0.01f);
  std::vector<double> want(60);
  for (int64_t p = 0; p < 6; ++p) {
    double m = 0, var = 0;
    for (int64_t i = 0; i < plane; ++i) m += x[p * plane + i] / plane;
    for (int64_t i = 0; i < plane; ++i) var += (x[p * plane + i] - m) * (x[p * plane + i] - m) / plane;
    for (int64_t i = 0; i < plane; ++i)
      want[p * plane + i] = (x[p * plane + i] - m) / std::sqrt(var + 0.01f) * scale[p % 3] + bias[p % 3];
  }
  expect_near_all(run_compiled(in6, {{"x", x}}).at("y"), want, 1e-5);

  OnnxModelBuilder lrn(13);
  lrn.input("x", shape).output("y");
  auto& l = lrn.node("LRN", {"x"}, {"y"}, "lrn");
  OnnxModelBuilder::attr(l, "size", int64_t{2});
  OnnxModelBuilder::float_attr(l, "alpha", 0.0002f);
  OnnxModelBuilder::float_attr(l, "beta", 0.5f);
  OnnxModelBuilder::float_attr(l, "bias", 2.0f);
  for (int64_t i = 0; i < 60; ++i) {
    const int64_t c = (i / plane) % 3;
    double sum = 0;
    for (int64_t cc = std::max<int64_t>(0, c); cc <= std::min<int64_t>(2, c + 1); ++cc)
      sum += double(x[i + (cc - c) * plane]) * x[i + (cc - c) * plane];
    want[i] = x[i] / std::pow(2.0 + 0.0002f / 2 * sum, 0.5);
  }
  expect_near_all(run_compiled(lrn, {{"x", x}}).at("y"), want, 1e-5);

  OnnxModelBuilder tiny_alpha(13);
  tiny_alpha.input("x", shape).output("y");
  auto& t = tiny_alpha.node("LRN", {"x"}, {"y"}, "lrn");
  OnnxModelBuilder::attr(t, "size", int64_t{3});
  OnnxModelBuilder::float_attr(t, "alpha", 1.5e-12f);
  const std::string e = build_error(tiny_alpha);
  EXPECT_NE(e.find("node 'lrn' (LRN"), std::string::npos) << e;
  EXPECT_NE(e.find("attribute 'alpha'"), std::string::npos) << e;

  for (const Shape& s : {Shape{2, 3, 7}, Shape{1, 2, 2, 3, 2}}) {
    SCOPED_TRACE(shape_str(s));
    const int64_t spatial = element_count(s) / (s[0] * s[1]);
    const std::vector<float> v = wavy(element_count(s), 1.0f);
    OnnxModelBuilder b(13);
    b.input("x", s).output("mx").output("avg");
    b.node("GlobalMaxPool", {"x"}, {"mx"}, "gmp");
    b.node("GlobalAveragePool", {"x"}, {"avg"}, "gap");
    const Graph g = import_onnx_bytes(b.bytes(), "gp.onnx");
    Shape out(s.size(), 1);
    out[0] = s[0], out[1] = s[1];
    EXPECT_EQ(g.value("mx").shape, out);
    std::vector<double> mx, avg;
    for (int64_t p = 0; p < s[0] * s[1]; ++p) {
      double m = -INFINITY, sum = 0;
      for (int64_t i = 0; i < spatial; ++i) m = std::max<double>(m, v[p * spatial + i]), sum += v[p * spatial + i];
      mx.push_back(m), avg.push_back(sum / spatial);
    }
    const auto got = run_compiled(b, {{"x", v}});
    expect_near_all(got.at("mx"), mx, 1e-6);
    expect_near_all(got.at("avg"), avg, 1e-5);
  }
}

}  // namespace
}  // namespace tf::graph

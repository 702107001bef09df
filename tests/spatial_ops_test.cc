// The spatial ops as exporters write them (graph/ops/conv.cc, conv_transpose.cc, pool.cc,
// resize.cc, window.cc), imported, planned, built with default configs and run through compiled
// kernels: 1-D Conv and pooling as 2-D over a unit height, ConvTranspose's output_shape resolved
// into pads, every Resize/Upsample version normalized to one resize2d node, and the refusals of
// what no kernel covers, each naming the attribute.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "compiler/codegen/target.h"
#include "compiler/error.h"
#include "compiler/ops/registry.h"
#include "graph/build.h"
#include "graph/onnx_import.h"
#include "graph/pipeline.h"
#include "graph/tasks.h"
#include "runtime/model/executor.h"
#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using testing::expect_near_all;
using testing::OnnxModelBuilder;

std::vector<float> wave(int64_t n, float scale, float phase = 0) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * 0.61f + phase) * scale;
  return v;
}

struct Output {
  Shape shape;
  std::vector<float> values;
};

// Imported, planned, built and run on `feeds`: output `y`.
Output run_compiled(const OnnxModelBuilder& b, const testing::FloatTensors& feeds) {
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const auto out = exec.run_floats(feeds);
  for (const auto& spec : exec.outputs()) {
    if (spec.name == "y") return {spec.shape, out.at("y")};
  }
  throw std::runtime_error("no output y");
}

// A registry kernel's own double-precision reference at named extents.
std::vector<double> kernel_reference(const std::string& op, const std::map<std::string, int64_t>& named,
                                     const std::vector<const float*>& in) {
  const ops::Operator& o = ops::find_operator(op);
  std::vector<float> out, tol;
  o.reference(o.shape_from_named(named), in, &out, &tol);
  return {out.begin(), out.end()};
}

void floats_attr(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float f : v) a->add_floats(f);
}

// Conv1d as exporters write it (kernel_shape [k], strides [s], pads [p, p], dilations [d]) is the
// 2-D convolution of [N,C,1,L] by a kernel of height 1, depthwise and dilated included.
TEST(SpatialOps, OneDimensionalConvRunsAsTwoDimensionalOverAUnitHeight) {
  OnnxModelBuilder b(12);
  const std::vector<float> w = wave(4 * 1 * 3, 0.5f, 1.0f);
  b.input("x", {1, 4, 21}).output("y").floats("w", {4, 1, 3}, w);
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "conv1d");
  OnnxModelBuilder::attr(conv, "kernel_shape", std::vector<int64_t>{3});
  OnnxModelBuilder::attr(conv, "strides", std::vector<int64_t>{2});
  OnnxModelBuilder::attr(conv, "pads", std::vector<int64_t>{2, 1});
  OnnxModelBuilder::attr(conv, "dilations", std::vector<int64_t>{2});
  OnnxModelBuilder::attr(conv, "group", int64_t{4});
  const std::vector<float> x = wave(4 * 21, 2.0f);
  const Output got = run_compiled(b, {{"x", x}});
  // (21 + 3 - 2 * 2 - 1) / 2 + 1 = 10 columns
  EXPECT_EQ(got.shape, (Shape{1, 4, 10}));
  std::vector<double> want;
  for (int64_t c = 0; c < 4; ++c) {
    for (int64_t o = 0; o < 10; ++o) {
      double sum = 0;
      for (int64_t j = 0; j < 3; ++j) {
        const int64_t i = o * 2 + j * 2 - 2;
        if (i >= 0 && i < 21) sum += static_cast<double>(x[c * 21 + i]) * w[c * 3 + j];
      }
      want.push_back(sum);
    }
  }
  expect_near_all(got.values, want, 1e-5);
}

// Between two 1-D convolutions the batch norm and Relu run on [N,C,1,L] (lift_unit_height): the
// norm folds into the first conv, the Relu fuses into it, and no Reshape is left between them.
TEST(SpatialOps, NodesBetweenOneDimensionalConvsRunOverTheUnitHeightToo) {
  OnnxModelBuilder b(12);
  const std::vector<float> w1 = wave(4 * 3 * 3, 0.5f, 0.2f), w2 = wave(2 * 4, 0.5f, 0.9f);
  b.input("x", {1, 3, 9}).output("y").floats("w1", {4, 3, 3}, w1).floats("w2", {2, 4, 1}, w2);
  b.floats("scale", {4}, {1.5f, 0.5f, 1.0f, 2.0f}).floats("shift", {4}, {0.1f, -0.2f, 0.3f, 0.0f});
  b.floats("mean", {4}, {0.0f, 0.1f, -0.1f, 0.2f}).floats("var", {4}, {1.0f, 0.5f, 2.0f, 1.0f});
  OnnxModelBuilder::attr(b.node("Conv", {"x", "w1"}, {"c1"}, "conv1"), "pads", std::vector<int64_t>{1, 1});
  b.node("BatchNormalization", {"c1", "scale", "shift", "mean", "var"}, {"bn"}, "bn");
  b.node("Relu", {"bn"}, {"r"}, "relu");
  b.node("Conv", {"r", "w2"}, {"y"}, "conv2");
  const Graph planned = plan_graph(import_onnx_bytes(b.bytes(), "test.onnx"));
  const auto ops = count_ops(planned);
  EXPECT_EQ(ops.count("BatchNormalization"), 0u);
  EXPECT_EQ(ops.count("Relu"), 0u);
  EXPECT_EQ(ops.at("Reshape"), 2);  // the input to [1,3,1,9], the output back to [1,2,9]

  const std::vector<float> x = wave(27, 1.0f);
  const std::vector<double> scale = {1.5, 0.5, 1.0, 2.0}, shift = {0.1, -0.2, 0.3, 0.0}, mean = {0.0, 0.1, -0.1, 0.2},
                            var = {1.0, 0.5, 2.0, 1.0};
  std::vector<double> r(4 * 9), want(2 * 9, 0.0);
  for (int64_t k = 0; k < 4; ++k) {
    for (int64_t o = 0; o < 9; ++o) {
      double sum = 0;
      for (int64_t c = 0; c < 3; ++c) {
        for (int64_t j = 0; j < 3; ++j) {
          if (o + j - 1 >= 0 && o + j - 1 < 9)
            sum += static_cast<double>(x[c * 9 + o + j - 1]) * w1[(k * 3 + c) * 3 + j];
        }
      }
      r[k * 9 + o] = std::max(0.0, (sum - mean[k]) / std::sqrt(var[k] + 1e-5) * scale[k] + shift[k]);
    }
  }
  for (int64_t k = 0; k < 2; ++k) {
    for (int64_t o = 0; o < 9; ++o) {
      for (int64_t c = 0; c < 4; ++c) want[k * 9 + o] += r[c * 9 + o] * w2[k * 4 + c];
    }
  }
  const Output got = run_compiled(b, {{"x", x}});
  EXPECT_EQ(got.shape, (Shape{1, 2, 9}));
  expect_near_all(got.values, want, 1e-5);
}

TEST(SpatialOps, OneDimensionalPoolsRunAsTwoDimensionalOverAUnitHeight) {
  const std::vector<float> x = wave(3 * 17, 3.0f);
  for (const char* op : {"MaxPool", "AveragePool"}) {
    OnnxModelBuilder b(12);
    b.input("x", {1, 3, 17}).output("y");
    auto& pool = b.node(op, {"x"}, {"y"}, "pool1d");
    OnnxModelBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{3});
    OnnxModelBuilder::attr(pool, "strides", std::vector<int64_t>{2});
    OnnxModelBuilder::attr(pool, "pads", std::vector<int64_t>{1, 1});
    const Output got = run_compiled(b, {{"x", x}});
    EXPECT_EQ(got.shape, (Shape{1, 3, 9})) << op;
    std::vector<double> want;
    for (int64_t c = 0; c < 3; ++c) {
      for (int64_t o = 0; o < 9; ++o) {
        double best = -INFINITY, sum = 0;
        int count = 0;
        for (int64_t i = std::max<int64_t>(0, o * 2 - 1); i <= std::min<int64_t>(16, o * 2 + 1); ++i, ++count) {
          best = std::max<double>(best, x[c * 17 + i]);
          sum += x[c * 17 + i];
        }
        want.push_back(std::string(op) == "MaxPool" ? best : sum / count);
      }
    }
    expect_near_all(got.values, want, 1e-6);
  }
}

// SAME_LOWER puts the odd pad first; ceil_mode adds a last window past the end, which an average
// not counting pads divides by the inputs it covers.
TEST(SpatialOps, PoolsTakeSamePaddingAndCeilMode) {
  const std::vector<float> x = wave(2 * 6 * 7, 1.0f);
  OnnxModelBuilder same(11);
  same.input("x", {1, 2, 6, 7}).output("y");
  auto& p = same.node("MaxPool", {"x"}, {"y"}, "same");
  OnnxModelBuilder::attr(p, "kernel_shape", std::vector<int64_t>{2, 2});
  OnnxModelBuilder::attr(p, "auto_pad", std::string("SAME_LOWER"));
  const Output s = run_compiled(same, {{"x", x}});
  EXPECT_EQ(s.shape, (Shape{1, 2, 6, 7}));
  expect_near_all(
      s.values,
      kernel_reference("max_pool2d",
                       {{"c", 2}, {"h", 6}, {"w", 7}, {"r", 2}, {"s", 2}, {"pad_top", 1}, {"pad_left", 1}}, {x.data()}),
      1e-6);

  OnnxModelBuilder ceil(11);
  ceil.input("x", {1, 2, 6, 7}).output("y");
  auto& a = ceil.node("AveragePool", {"x"}, {"y"}, "ceil");
  OnnxModelBuilder::attr(a, "kernel_shape", std::vector<int64_t>{3, 3});
  OnnxModelBuilder::attr(a, "strides", std::vector<int64_t>{2, 2});
  OnnxModelBuilder::attr(a, "ceil_mode", int64_t{1});
  const Output c = run_compiled(ceil, {{"x", x}});
  ASSERT_EQ(c.shape, (Shape{1, 2, 3, 3}));
  // The last column's window covers input columns 4..6 (all real), the last row's rows 4..5.
  double corner = 0;
  for (int64_t i = 4; i < 6; ++i) {
    for (int64_t j = 4; j < 7; ++j) corner += x[i * 7 + j];
  }
  EXPECT_NEAR(c.values[8], corner / 6, 1e-6);

  auto& counted = ceil.node("AveragePool", {"x"}, {"z"}, "counted");
  OnnxModelBuilder::attr(counted, "kernel_shape", std::vector<int64_t>{3, 3});
  OnnxModelBuilder::attr(counted, "strides", std::vector<int64_t>{2, 2});
  OnnxModelBuilder::attr(counted, "ceil_mode", int64_t{1});
  OnnxModelBuilder::attr(counted, "count_include_pad", int64_t{1});
  ceil.output("z");
  BuildOptions options;
  options.target = codegen::host_target();
  try {
    build_model(plan_graph(import_onnx_bytes(ceil.bytes(), "test.onnx")), options);
    ADD_FAILURE() << "ceil_mode with count_include_pad was built";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'counted'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("count_include_pad"), std::string::npos) << e.what();
  }
}

// A MaxPool max_pool2d does not take (dilated, strides unequal) is the Max of its taps.
TEST(SpatialOps, DilatedMaxPoolOfUnequalStridesIsTheMaxOfItsTaps) {
  const int64_t h = 9, w = 11;
  const std::vector<float> x = wave(2 * h * w, 2.0f);
  OnnxModelBuilder b(12);
  b.input("x", {1, 2, h, w}).output("y");
  auto& p = b.node("MaxPool", {"x"}, {"y"}, "dilated");
  OnnxModelBuilder::attr(p, "kernel_shape", std::vector<int64_t>{2, 3});
  OnnxModelBuilder::attr(p, "dilations", std::vector<int64_t>{3, 2});
  OnnxModelBuilder::attr(p, "strides", std::vector<int64_t>{1, 2});
  OnnxModelBuilder::attr(p, "pads", std::vector<int64_t>{1, 2, 0, 1});
  const Output got = run_compiled(b, {{"x", x}});
  // rows (9 + 1 - 3 - 1) / 1 + 1 = 7, columns (11 + 3 - 4 - 1) / 2 + 1 = 5
  ASSERT_EQ(got.shape, (Shape{1, 2, 7, 5}));
  std::vector<double> want;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t oy = 0; oy < 7; ++oy) {
      for (int64_t ox = 0; ox < 5; ++ox) {
        double best = -INFINITY;
        for (int64_t i = 0; i < 2; ++i) {
          for (int64_t j = 0; j < 3; ++j) {
            const int64_t iy = oy + i * 3 - 1, ix = ox * 2 + j * 2 - 2;
            if (iy >= 0 && iy < h && ix >= 0 && ix < w) best = std::max<double>(best, x[(c * h + iy) * w + ix]);
          }
        }
        want.push_back(best);
      }
    }
  }
  expect_near_all(got.values, want, 0);
}

// ConvTranspose1d with output_shape one beyond the natural size (a negative end pad: the last
// column gets the bias alone) and a bias, against the scatter ONNX defines: input column i, tap j
// write output column i * stride + j * dilation - pad_begin.
TEST(SpatialOps, ConvTransposeResolvesOutputShapeIntoPadsAndRunsOneDimensional) {
  const int64_t c = 2, k = 3, l = 5, kw = 3, stride = 2;
  const std::vector<float> w = wave(c * k * kw, 0.7f, 0.3f), bias = {0.5f, -0.25f, 1.0f};
  OnnxModelBuilder b(11);
  b.input("x", {1, c, l}).output("y").floats("w", {c, k, kw}, w).floats("b", {k}, bias);
  auto& t = b.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "deconv1d");
  OnnxModelBuilder::attr(t, "strides", std::vector<int64_t>{stride});
  OnnxModelBuilder::attr(t, "output_shape", std::vector<int64_t>{12});
  const std::vector<float> x = wave(c * l, 1.5f);
  const Output got = run_compiled(b, {{"x", x}});
  ASSERT_EQ(got.shape, (Shape{1, k, 12}));
  // Natural size 2 * 4 + 3 = 11: total padding -1, split as begin 0, end -1.
  std::vector<double> want(k * 12);
  for (int64_t o = 0; o < k; ++o) {
    for (int64_t col = 0; col < 12; ++col) want[o * 12 + col] = bias[o];
    for (int64_t ci = 0; ci < c; ++ci) {
      for (int64_t i = 0; i < l; ++i) {
        for (int64_t j = 0; j < kw; ++j)
          want[o * 12 + i * stride + j] += static_cast<double>(x[ci * l + i]) * w[(ci * k + o) * kw + j];
      }
    }
  }
  expect_near_all(got.values, want, 1e-5);
}

TEST(SpatialOps, ConvTransposeSamePaddingGivesInputTimesStride) {
  OnnxModelBuilder b(11);
  const std::vector<float> w = wave(2 * 4 * 3 * 3, 0.4f);
  b.input("x", {1, 2, 5, 4}).output("y").floats("w", {2, 4, 3, 3}, w);
  auto& t = b.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
  OnnxModelBuilder::attr(t, "strides", std::vector<int64_t>{2, 3});
  OnnxModelBuilder::attr(t, "group", int64_t{2});
  OnnxModelBuilder::attr(t, "auto_pad", std::string("SAME_UPPER"));
  const std::vector<float> x = wave(2 * 5 * 4, 1.0f);
  const Output got = run_compiled(b, {{"x", x}});
  ASSERT_EQ(got.shape, (Shape{1, 8, 10, 12}));
  // total = stride * (in - 1) + kernel - out: rows 2*4+3-10 = 1 (0 before, 1 after), columns
  // 3*3+3-12 = 0.
  expect_near_all(got.values,
                  kernel_reference("conv2d_transpose",
                                   {{"c", 2},
                                    {"h", 5},
                                    {"w", 4},
                                    {"k", 8},
                                    {"r", 3},
                                    {"s", 3},
                                    {"group", 2},
                                    {"stride_h", 2},
                                    {"stride_w", 3},
                                    {"pad_bottom", 1}},
                                   {x.data(), w.data()}),
                  1e-5);
}

// ConvTranspose is tuned as its kernel: `model tune` gets one conv2d_transpose_bias task.
TEST(SpatialOps, ConvTransposeIsATunableTaskOfItsKernelsWorkload) {
  OnnxModelBuilder b(11);
  b.input("x", {1, 8, 6, 6})
      .output("y")
      .floats("w", {8, 4, 2, 2}, wave(128, 0.3f))
      .floats("b", {4}, {0.1f, 0.2f, 0.3f, 0.4f});
  OnnxModelBuilder::attr(b.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "up"), "strides", std::vector<int64_t>{2, 2});
  const auto tasks = tunable_tasks(plan_graph(import_onnx_bytes(b.bytes(), "test.onnx")));
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].workload.op, "conv2d_transpose_bias");
  EXPECT_EQ(tasks[0].shape_text, "n=1,c=8,h=6,w=6,k=4,r=2,s=2,stride=2");
  EXPECT_EQ(tasks[0].flops, 2 * 4 * 8 * 36 * 4);
  EXPECT_EQ(tasks[0].nodes, (std::vector<std::string>{"up"}));
}

// Upsample 7 (scales attribute), Upsample 9 and Resize 10 (scales input) are one canonical node:
// asymmetric coordinates, nearest rounding down when upsampling.
TEST(SpatialOps, UpsampleAndResizeTenNormalizeToOneResizeNode) {
  auto model = [](const std::string& op, int64_t opset) {
    OnnxModelBuilder b(opset);
    b.input("x", {1, 2, 3, 4}).output("y");
    if (opset < 9) {
      auto& n = b.node(op, {"x"}, {"y"}, "up");
      floats_attr(n, "scales", {1, 1, 2, 1.5f});
    } else {
      b.floats("scales", {4}, {1, 1, 2, 1.5f});
      b.node(op, {"x", "scales"}, {"y"}, "up");
    }
    return b;
  };
  const OnnxModelBuilder up7 = model("Upsample", 7), up9 = model("Upsample", 9), r10 = model("Resize", 10);
  const Graph g7 = import_onnx_bytes(up7.bytes(), "up7"), g9 = import_onnx_bytes(up9.bytes(), "up9"),
              g10 = import_onnx_bytes(r10.bytes(), "r10");
  ASSERT_EQ(g7.nodes.size(), 1u);
  EXPECT_EQ(g7.nodes[0].op, "Resize");
  EXPECT_EQ(g7.nodes[0].inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(g7.nodes[0].attrs, g9.nodes.at(0).attrs);
  EXPECT_EQ(g7.nodes[0].attrs, g10.nodes.at(0).attrs);
  EXPECT_EQ(g7.nodes[0].attr_int("scale_w_num", 0), 3);
  EXPECT_EQ(g7.nodes[0].attr_int("scale_w_den", 0), 2);

  const std::vector<float> x = wave(2 * 3 * 4, 1.0f);
  const Output got = run_compiled(up7, {{"x", x}});
  ASSERT_EQ(got.shape, (Shape{1, 2, 6, 6}));
  std::vector<double> want;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t i = 0; i < 6; ++i) {
      for (int64_t j = 0; j < 6; ++j)
        want.push_back(x[(c * 3 + i / 2) * 4 + static_cast<int64_t>(std::floor(j / 1.5))]);
    }
  }
  expect_near_all(got.values, want, 0);
}

// Resize 10 downsampling by nearest rounds the source coordinate up, as ONNX Runtime does (its
// output for this model, checked with bench/ort/ort_run.js).
TEST(SpatialOps, ResizeTenDownsamplingRoundsTheSourceUp) {
  OnnxModelBuilder b(10);
  b.input("x", {1, 1, 5, 8}).output("y").floats("scales", {4}, {1, 1, 0.6f, 0.75f});
  b.node("Resize", {"x", "scales"}, {"y"}, "down");
  std::vector<float> x(40);
  for (int i = 0; i < 40; ++i) x[i] = static_cast<float>(i);
  const Output got = run_compiled(b, {{"x", x}});
  ASSERT_EQ(got.shape, (Shape{1, 1, 3, 6}));
  expect_near_all(got.values, {0, 2, 3, 4, 6, 7, 16, 18, 19, 20, 22, 23, 32, 34, 35, 36, 38, 39}, 0);
}

// Resize 18 with axes [2, 3] and sizes under keep_aspect_ratio_policy: one scale for both axes, the
// smaller (not_larger) or larger (not_smaller) of size/in, out = round(scale * in).
TEST(SpatialOps, ResizeEighteenKeepsTheAspectRatioOverTheAxesItNames) {
  auto model = [](const std::string& policy) {
    OnnxModelBuilder b(18);
    b.input("x", {1, 1, 4, 6}).output("y").ints("sizes", {2}, {3, 3});
    auto& n = b.node("Resize", {"x", "", "", "sizes"}, {"y"}, "resize");
    OnnxModelBuilder::attr(n, "axes", std::vector<int64_t>{2, -1});
    OnnxModelBuilder::attr(n, "keep_aspect_ratio_policy", policy);
    return b;
  };
  const std::vector<float> x = wave(24, 1.0f);
  const Output smaller = run_compiled(model("not_larger"), {{"x", x}});
  ASSERT_EQ(smaller.shape, (Shape{1, 1, 2, 3}));
  // half_pixel at scale 1/2: source 2i + 0.5, round_prefer_floor takes 2i.
  std::vector<double> want;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) want.push_back(x[2 * i * 6 + 2 * j]);
  }
  expect_near_all(smaller.values, want, 0);
  const Graph larger = import_onnx_bytes(model("not_smaller").bytes(), "resize");
  EXPECT_EQ(larger.value("y").shape, (Shape{1, 1, 3, 5}));  // scale 3/4: 4.5 rounds up to 5
}

TEST(SpatialOps, WhatNoKernelCoversIsRefusedNamingTheAttributeOrInput) {
  auto resize = [](const std::function<void(OnnxModelBuilder&, onnx::NodeProto&)>& edit, bool constant_scales = true) {
    OnnxModelBuilder b(18);
    b.input("x", {1, 2, 4, 4}).output("y");
    if (constant_scales)
      b.floats("scales", {4}, {1, 1, 2, 2});
    else
      b.input("scales", {4});
    auto& n = b.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    edit(b, n);
    return testing::plan_error(b);
  };
  EXPECT_NE(resize([](auto&, auto& n) {
              OnnxModelBuilder::attr(n, "mode", std::string("cubic"));
            }).find("'mode' = 'cubic' is not supported"),
            std::string::npos);
  EXPECT_NE(resize([](auto&, auto& n) {
              OnnxModelBuilder::attr(n, "antialias", int64_t{1});
            }).find("'antialias' = 1 is not supported"),
            std::string::npos);
  EXPECT_NE(resize([](auto&, auto& n) {
              OnnxModelBuilder::attr(n, "nearest_mode", std::string("up"));
            }).find("'nearest_mode' = 'up'"),
            std::string::npos);
  EXPECT_NE(resize([](auto&, auto&) {}, false).find("input 'scales' must be a constant"), std::string::npos);
  {
    OnnxModelBuilder b(13);
    b.input("x", {1, 2, 4, 4}).output("y").floats("scales", {4}, {1, 2, 1, 1});
    b.node("Resize", {"x", "", "scales"}, {"y"}, "channels");
    EXPECT_NE(import_error(b).find("resizing axis 1 (C) is not supported"), std::string::npos) << import_error(b);
  }
  {
    OnnxModelBuilder b(12);
    b.input("x", {1, 2, 4, 4, 4, 4}).output("y");
    OnnxModelBuilder::attr(b.node("MaxPool", {"x"}, {"y"}, "pool4d"), "kernel_shape", std::vector<int64_t>{2, 2, 2, 2});
    EXPECT_NE(import_error(b).find("a 4-D window is not supported"), std::string::npos) << import_error(b);
  }
  {
    OnnxModelBuilder b(12);
    b.input("x", {1, 2, 4, 4}).output("y");
    auto& n = b.node("AveragePool", {"x"}, {"y"}, "dilated");
    OnnxModelBuilder::attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    OnnxModelBuilder::attr(n, "dilations", std::vector<int64_t>{2, 2});
    EXPECT_NE(import_error(b).find("dilated average pooling is not supported"), std::string::npos) << import_error(b);
  }
  {
    OnnxModelBuilder b(11);
    b.input("x", {1, 2, 3, 3}).output("y").floats("w", {3, 1, 3, 3}, wave(27, 1.0f));
    auto& n = b.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
    OnnxModelBuilder::attr(n, "strides", std::vector<int64_t>{2, 2});
    const std::string why = testing::plan_error(b);
    EXPECT_NE(why.find("node 'deconv'"), std::string::npos) << why;
    EXPECT_NE(why.find("does not have the input's 2 channels"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace tf::graph

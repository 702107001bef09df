// 3-D windows as video and medical exporters write them (graph/ops/conv.cc, conv_transpose.cc,
// pool.cc, window.cc): Conv on NCDHW with its batch norm folded and its Relu fused into
// conv3d_bias_relu (tuned as that kernel), ConvTranspose on NCDHW as conv3d_transpose, MaxPool /
// AveragePool on NCDHW with pads, auto_pad and ceil_mode as max_pool3d / avg_pool3d, imported,
// planned, built with default configs and run through compiled kernels against plain loops; and the
// refusals of what no kernel covers, each naming the node.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ops/registry.h"
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
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f + phase) * scale;
  return v;
}

std::vector<std::string> planned_ops(const OnnxModelBuilder& b) {
  std::vector<std::string> ops;
  for (const Node& n : plan_graph(import_onnx_bytes(b.bytes(), "test.onnx")).nodes) ops.push_back(n.op);
  return ops;
}

// Conv3d (stride 2 in depth, pads 1, groups 2) -> BatchNormalization -> Relu: one conv3d_bias_relu
// kernel with the norm folded into its weight and bias, equal to the three ops done one by one.
TEST(VolumeOps, ConvBatchNormReluIsOneConv3dKernel) {
  const int64_t c = 4, k = 6, d = 5, h = 6, w = 7, cg = 2;
  const std::vector<float> wt = wave(k * cg * 27, 0.4f, 0.3f), bias = wave(k, 0.2f, 1.1f);
  const std::vector<float> scale = {1.5f, 0.5f, 1.0f, 2.0f, 0.7f, 1.2f}, shift = {0.1f, -0.2f, 0.3f, 0.0f, 0.5f, -0.4f};
  const std::vector<float> mean = {0.05f, -0.1f, 0.2f, 0.0f, 0.1f, -0.3f}, var = {1.0f, 0.5f, 2.0f, 0.8f, 1.3f, 0.9f};
  OnnxModelBuilder b(12);
  b.input("x", {1, c, d, h, w}).output("y").floats("w", {k, cg, 3, 3, 3}, wt).floats("b", {k}, bias);
  b.floats("scale", {k}, scale).floats("shift", {k}, shift).floats("mean", {k}, mean).floats("var", {k}, var);
  auto& conv = b.node("Conv", {"x", "w", "b"}, {"conv"}, "conv3d");
  OnnxModelBuilder::attr(conv, "kernel_shape", std::vector<int64_t>{3, 3, 3});
  OnnxModelBuilder::attr(conv, "strides", std::vector<int64_t>{2, 1, 1});
  OnnxModelBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1});
  OnnxModelBuilder::attr(conv, "group", int64_t{2});
  b.node("BatchNormalization", {"conv", "scale", "shift", "mean", "var"}, {"bn"}, "bn");
  b.node("Relu", {"bn"}, {"y"}, "relu");
  EXPECT_EQ(planned_ops(b), (std::vector<std::string>{"conv3d_bias_relu"}));

  const std::vector<float> x = wave(c * d * h * w, 1.5f);
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const auto got = exec.run_floats({{"x", x}}).at("y");
  const int64_t od = (d + 2 - 3) / 2 + 1;
  std::vector<double> want;
  for (int64_t o = 0; o < k; ++o)
    for (int64_t z = 0; z < od; ++z)
      for (int64_t r = 0; r < h; ++r)
        for (int64_t q = 0; q < w; ++q) {
          double s = bias[o];
          for (int64_t i = 0; i < cg; ++i)
            for (int64_t kz = 0; kz < 3; ++kz)
              for (int64_t ky = 0; ky < 3; ++ky)
                for (int64_t kx = 0; kx < 3; ++kx) {
                  const int64_t iz = z * 2 + kz - 1, iy = r + ky - 1, ix = q + kx - 1;
                  if (iz < 0 || iz >= d || iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                  s += static_cast<double>(x[(((o / 3) * cg + i) * d + iz) * h * w + iy * w + ix]) *
                       wt[((o * cg + i) * 3 + kz) * 9 + ky * 3 + kx];
                }
          const double normed = (s - mean[o]) / std::sqrt(var[o] + 1e-5) * scale[o] + shift[o];
          want.push_back(std::max(normed, 0.0));
        }
  expect_near_all(got, want, 1e-5);

  const auto tasks = tunable_tasks(plan_graph(import_onnx_bytes(b.bytes(), "test.onnx")));
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].workload.op, "conv3d_bias_relu");
  EXPECT_EQ(tasks[0].shape_text,
            "n=1,c=4,d=5,h=6,w=7,k=6,kd=3,kh=3,kw=3,groups=2,stride_d=2,stride_h=1,stride_w=1,pad=1");
  EXPECT_EQ(tasks[0].nodes, (std::vector<std::string>{"conv3d"}));
}

// A 3-D MaxPool with ceil_mode and a per-axis stride, and an AveragePool with SAME_UPPER, against
// ONNX's definitions written out: the window's taps inside the input, the average over those.
TEST(VolumeOps, PoolsTakeCeilModeAndSamePadding) {
  const int64_t d = 5, h = 6, w = 7;
  const std::vector<float> x = wave(2 * d * h * w, 2.0f);
  OnnxModelBuilder b(12);
  b.input("x", {1, 2, d, h, w}).output("y").output("z");
  auto& mp = b.node("MaxPool", {"x"}, {"y"}, "max3d");
  OnnxModelBuilder::attr(mp, "kernel_shape", std::vector<int64_t>{2, 3, 2});
  OnnxModelBuilder::attr(mp, "strides", std::vector<int64_t>{2, 2, 3});
  OnnxModelBuilder::attr(mp, "pads", std::vector<int64_t>{0, 1, 0, 0, 1, 0});
  OnnxModelBuilder::attr(mp, "ceil_mode", int64_t{1});
  auto& ap = b.node("AveragePool", {"x"}, {"z"}, "avg3d");
  OnnxModelBuilder::attr(ap, "kernel_shape", std::vector<int64_t>{2, 2, 3});
  OnnxModelBuilder::attr(ap, "auto_pad", std::string("SAME_UPPER"));
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const auto out = exec.run_floats({{"x", x}});

  struct Axis {
    int64_t in, k, s, pad, out;
  };
  auto pool = [&](const Axis(&a)[3], bool max) {
    std::vector<double> want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t z = 0; z < a[0].out; ++z)
        for (int64_t r = 0; r < a[1].out; ++r)
          for (int64_t q = 0; q < a[2].out; ++q) {
            double acc = max ? -INFINITY : 0;
            int64_t taps = 0;
            for (int64_t i = 0; i < a[0].k; ++i)
              for (int64_t j = 0; j < a[1].k; ++j)
                for (int64_t l = 0; l < a[2].k; ++l) {
                  const int64_t iz = z * a[0].s + i - a[0].pad, iy = r * a[1].s + j - a[1].pad,
                                ix = q * a[2].s + l - a[2].pad;
                  if (iz < 0 || iz >= d || iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                  const double v = x[((c * d + iz) * h + iy) * w + ix];
                  acc = max ? std::max(acc, v) : acc + v;
                  ++taps;
                }
            want.push_back(max ? acc : acc / static_cast<double>(taps));
          }
    return want;
  };
  // ceil((5 - 2) / 2) + 1 = 3, ceil((6 + 2 - 3) / 2) + 1 = 4, ceil((7 - 2) / 3) + 1 = 3
  expect_near_all(out.at("y"), pool({{d, 2, 2, 0, 3}, {h, 3, 2, 1, 4}, {w, 2, 3, 0, 3}}, true), 0);
  // SAME_UPPER with stride 1: the odd total pad of a window of 2 goes at the end, 3 splits 1/1.
  expect_near_all(out.at("z"), pool({{d, 2, 1, 0, d}, {h, 2, 1, 0, h}, {w, 3, 1, 1, w}}, false), 1e-6);
}

// BatchNormalization 6 as PyTorch exported BatchNorm3d (is_test = 1) on NCDHW: per channel
// (x - mean) / sqrt(var + eps) * scale + shift. With is_test = 0 version 6 trains: refused.
TEST(VolumeOps, BatchNormSixOnNcdhwIsInferenceWhenIsTest) {
  auto model = [](int64_t is_test) {
    OnnxModelBuilder b(6);
    b.input("x", {2, 2, 3, 2, 2}).output("y").floats("s", {2}, {1.5f, 0.5f}).floats("b", {2}, {0.1f, -0.2f});
    b.floats("m", {2}, {0.3f, -0.1f}).floats("v", {2}, {2.0f, 0.5f});
    auto& bn = b.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, "bn3d");
    OnnxModelBuilder::attr(bn, "is_test", is_test);
    OnnxModelBuilder::float_attr(bn, "epsilon", 1e-3f);
    return b;
  };
  const std::vector<float> x = wave(48, 2.0f);
  const auto got = testing::run_floats(model(1), {{"x", x}}).at("y");
  std::vector<double> want;
  const double scale[2] = {1.5, 0.5}, shift[2] = {0.1, -0.2}, mean[2] = {0.3, -0.1}, var[2] = {2.0, 0.5};
  for (int64_t i = 0; i < 48; ++i) {
    const int64_t c = (i / 12) % 2;
    want.push_back((x[i] - static_cast<float>(mean[c])) /
                       std::sqrt(static_cast<double>(static_cast<float>(var[c])) + 1e-3) * scale[c] +
                   shift[c]);
  }
  expect_near_all(got, want, 1e-5);
  const std::string e = testing::import_error(model(0));
  EXPECT_NE(e.find("bn3d"), std::string::npos) << e;
  EXPECT_NE(e.find("'is_test' = 0 (training, the default of version 6) is not supported"), std::string::npos) << e;
}

// ConvTranspose3d with output_shape (resolved into pads, one of them negative), a stride per axis
// and a bias, against ONNX's scatter: input (i, tap j) adds to output i * stride + j - pad_begin.
// It is tuned as its kernel: one conv3d_transpose_bias task.
TEST(VolumeOps, ConvTransposeThreeDimensionalTakesOutputShape) {
  const int64_t c = 2, k = 3, d = 2, h = 3, w = 4;
  const std::vector<float> wt = wave(c * k * 8, 0.5f, 0.4f), bias = {0.1f, -0.2f, 0.3f};
  OnnxModelBuilder b(11);
  b.input("x", {1, c, d, h, w}).output("y").floats("w", {c, k, 2, 2, 2}, wt).floats("b", {k}, bias);
  auto& up = b.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "up3d");
  OnnxModelBuilder::attr(up, "strides", std::vector<int64_t>{2, 1, 2});
  // natural output [4, 4, 8]; asked [4, 5, 8]: the rows' total pad is -1, split 0 / -1 (SAME_LOWER's rule)
  OnnxModelBuilder::attr(up, "output_shape", std::vector<int64_t>{4, 5, 8});
  const std::vector<float> x = wave(c * d * h * w, 1.0f);
  runtime::model::Executor exec(testing::build_with_defaults(b));
  const auto got = exec.run_floats({{"x", x}}).at("y");
  const int64_t od = 4, oh = 5, ow = 8, s[3] = {2, 1, 2};
  std::vector<double> want(k * od * oh * ow, 0.0);
  for (int64_t o = 0; o < k; ++o)
    for (int64_t i = 0; i < od * oh * ow; ++i) want[o * od * oh * ow + i] = bias[o];
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t iz = 0; iz < d; ++iz)
      for (int64_t iy = 0; iy < h; ++iy)
        for (int64_t ix = 0; ix < w; ++ix)
          for (int64_t o = 0; o < k; ++o)
            for (int64_t jz = 0; jz < 2; ++jz)
              for (int64_t jy = 0; jy < 2; ++jy)
                for (int64_t jx = 0; jx < 2; ++jx) {
                  const int64_t z = iz * s[0] + jz, y = iy * s[1] + jy, q = ix * s[2] + jx;
                  if (z >= od || y >= oh || q >= ow) continue;
                  want[((o * od + z) * oh + y) * ow + q] += static_cast<double>(x[((ci * d + iz) * h + iy) * w + ix]) *
                                                            wt[((ci * k + o) * 2 + jz) * 4 + jy * 2 + jx];
                }
  expect_near_all(got, want, 1e-5);
  const auto tasks = tunable_tasks(plan_graph(import_onnx_bytes(b.bytes(), "test.onnx")));
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].workload.op, "conv3d_transpose_bias");
  EXPECT_EQ(tasks[0].nodes, (std::vector<std::string>{"up3d"}));
}

TEST(VolumeOps, WhatNoKernelCoversIsRefusedNamingTheNode) {
  {
    OnnxModelBuilder b(12);
    b.input("x", {1, 2, 4, 4, 4, 4}).output("y");
    OnnxModelBuilder::attr(b.node("MaxPool", {"x"}, {"y"}, "pool4d"), "kernel_shape", std::vector<int64_t>{2, 2, 2, 2});
    const std::string e = testing::import_error(b);
    EXPECT_NE(e.find("a 4-D window is not supported"), std::string::npos) << e;
  }
  {
    OnnxModelBuilder b(12);
    b.input("x", {1, 2, 5, 5, 5}).output("y");
    auto& p = b.node("AveragePool", {"x"}, {"y"}, "counted");
    OnnxModelBuilder::attr(p, "kernel_shape", std::vector<int64_t>{2, 2, 2});
    OnnxModelBuilder::attr(p, "strides", std::vector<int64_t>{2, 2, 2});
    OnnxModelBuilder::attr(p, "ceil_mode", int64_t{1});
    OnnxModelBuilder::attr(p, "count_include_pad", int64_t{1});
    const std::string e = testing::build_error(b);
    EXPECT_NE(e.find("node 'counted'"), std::string::npos) << e;
    EXPECT_NE(e.find("count_include_pad"), std::string::npos) << e;
  }
  {
    OnnxModelBuilder b(12);
    b.input("x", {1, 2, 5, 5, 5}).output("y").floats("w", {3, 2, 2, 2}, wave(24, 0.5f));
    b.node("Conv", {"x", "w"}, {"y"}, "flat_weight");
    const std::string e = testing::import_error(b);
    EXPECT_NE(e.find("flat_weight"), std::string::npos) << e;
    EXPECT_NE(e.find("rank 5"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace tf::graph

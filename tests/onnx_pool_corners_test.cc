// Pools the pool2d kernels do not take as they are: unequal strides (pooled at their common
// divisor, then every few rows kept), a dilated MaxPool of hundreds of taps (a strided copy of the
// input pooled undilated), with padding and ceil_mode. Each is built and run through compiled
// kernels and checked against ONNX's definition computed here element by element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/onnx_model_builder.h"
#include "tests/onnx_model_run.h"

namespace tf::graph {
namespace {

using testing::OnnxModelBuilder;

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // 2-D: pads top, left, bottom, right
  bool ceil = false;
  bool count_include_pad = false;
};

int64_t out_extent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, bool ceil) {
  const int64_t span = in + pb + pe - d * (k - 1) - 1;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + pb) --out;
  return out;
}

// ONNX's MaxPool / AveragePool of x [1, 1, h, w].
std::vector<double> reference(bool max, const std::vector<float>& x, int64_t h, int64_t w, const Window& p) {
  const int64_t oh = out_extent(h, p.kernel[0], p.strides[0], p.dilations[0], p.pads[0], p.pads[2], p.ceil);
  const int64_t ow = out_extent(w, p.kernel[1], p.strides[1], p.dilations[1], p.pads[1], p.pads[3], p.ceil);
  std::vector<double> out;
  for (int64_t oy = 0; oy < oh; ++oy) {
    for (int64_t ox = 0; ox < ow; ++ox) {
      double best = -std::numeric_limits<double>::infinity(), sum = 0;
      int64_t count = 0, padded = 0;
      for (int64_t i = 0; i < p.kernel[0]; ++i) {
        for (int64_t j = 0; j < p.kernel[1]; ++j) {
          const int64_t y = oy * p.strides[0] + i * p.dilations[0] - p.pads[0],
                        xx = ox * p.strides[1] + j * p.dilations[1] - p.pads[1];
          if (y < h + p.pads[2] && xx < w + p.pads[3]) ++padded;
          if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
          best = std::max(best, static_cast<double>(x[y * w + xx]));
          sum += x[y * w + xx];
          ++count;
        }
      }
      out.push_back(max ? best : sum / static_cast<double>(p.count_include_pad ? padded : count));
    }
  }
  return out;
}

std::vector<float> pattern(int64_t count) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<float>((i * 37) % 101) * 0.25f - 12;
  return v;
}

// A one-node model of `op` over x [1, 1, h, w] (or [1, 1, w] with `one_d`, its attributes the second axis's).
std::vector<float> run_pool(const std::string& op, int64_t h, int64_t w, const Window& p, bool one_d,
                            const std::vector<float>& x) {
  OnnxModelBuilder b(12);
  b.input("x", one_d ? std::vector<int64_t>{1, 1, w} : std::vector<int64_t>{1, 1, h, w}).output("y");
  auto& n = b.node(op, {"x"}, {"y"});
  auto axes = [&](const std::vector<int64_t>& v) { return one_d ? std::vector<int64_t>{v[1]} : v; };
  OnnxModelBuilder::attr(n, "kernel_shape", axes(p.kernel));
  OnnxModelBuilder::attr(n, "strides", axes(p.strides));
  if (op == "MaxPool") OnnxModelBuilder::attr(n, "dilations", axes(p.dilations));
  OnnxModelBuilder::attr(n, "pads", one_d ? std::vector<int64_t>{p.pads[1], p.pads[3]} : p.pads);
  if (p.ceil) OnnxModelBuilder::attr(n, "ceil_mode", int64_t{1});
  if (p.count_include_pad) OnnxModelBuilder::attr(n, "count_include_pad", int64_t{1});
  return testing::run_floats(b, {{"x", x}}).at("y");
}

void expect_pool(const std::string& op, int64_t h, int64_t w, const Window& p, bool one_d = false) {
  SCOPED_TRACE(op);
  const std::vector<float> x = pattern(h * w);
  testing::expect_near_all(run_pool(op, h, w, p, one_d, x), reference(op == "MaxPool", x, h, w, p), 1e-6);
}

TEST(OnnxPoolCorners, UnequalStridesPoolAtTheirCommonDivisor) {
  expect_pool("AveragePool", 6, 1, {{2, 1}, {2, 1}, {1, 1}, {0, 0, 0, 0}});  // PyTorch's AvgPool1d after its Unsqueeze
  expect_pool("AveragePool", 9, 10, {{3, 2}, {2, 3}, {1, 1}, {1, 0, 1, 1}});
  expect_pool("AveragePool", 9, 10, {{3, 2}, {2, 3}, {1, 1}, {1, 0, 1, 1}, false, true});
  expect_pool("AveragePool", 9, 11, {{3, 3}, {4, 2}, {1, 1}, {0, 1, 0, 0}, true});
  expect_pool("MaxPool", 9, 11, {{3, 3}, {4, 2}, {1, 1}, {0, 1, 0, 0}, true});
  expect_pool("MaxPool", 7, 12, {{2, 2}, {3, 2}, {1, 1}, {1, 1, 1, 1}});
}

TEST(OnnxPoolCorners, DilatedMaxPoolOfManyTapsPoolsAStridedCopy) {
  // PyTorch's MaxPool1d/2d stride_padding_dilation tests, smaller: strides equal to the dilations.
  expect_pool("MaxPool", 1, 2200, {{1, 200}, {1, 10}, {1, 10}, {0, 100, 0, 100}}, true);
  expect_pool("MaxPool", 100, 110, {{6, 9}, {3, 3}, {3, 3}, {1, 2, 1, 2}});
  expect_pool("MaxPool", 40, 45, {{5, 4}, {4, 3}, {2, 3}, {2, 1, 0, 3}, true});  // strides twice and once the dilations
}

// ONNX's 3-D pool of x [1, 2, d, h, w] (kernel, strides, pads begin d h w then end d h w; no dilation).
std::vector<double> reference_3d(bool max, const std::vector<float>& x, const std::vector<int64_t>& in, const Window& p,
                                 bool count_pad) {
  int64_t o[3];
  for (int a = 0; a < 3; ++a) o[a] = out_extent(in[a], p.kernel[a], p.strides[a], 1, p.pads[a], p.pads[a + 3], p.ceil);
  std::vector<double> out;
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t i = 0; i < o[0] * o[1] * o[2]; ++i) {
      const int64_t at[3] = {i / (o[1] * o[2]), i / o[2] % o[1], i % o[2]};
      double best = -INFINITY, sum = 0;
      int64_t count = 1, padded = 1;
      for (int a = 0; a < 3; ++a) {
        const int64_t start = at[a] * p.strides[a] - p.pads[a];
        count *= std::min(start + p.kernel[a], in[a]) - std::max<int64_t>(start, 0);
        padded *= std::min(start + p.kernel[a], in[a] + p.pads[a + 3]) - start;
      }
      for (int64_t z = 0; z < p.kernel[0]; ++z) {
        for (int64_t y = 0; y < p.kernel[1]; ++y) {
          for (int64_t xx = 0; xx < p.kernel[2]; ++xx) {
            const int64_t q[3] = {at[0] * p.strides[0] + z - p.pads[0], at[1] * p.strides[1] + y - p.pads[1],
                                  at[2] * p.strides[2] + xx - p.pads[2]};
            if (q[0] < 0 || q[0] >= in[0] || q[1] < 0 || q[1] >= in[1] || q[2] < 0 || q[2] >= in[2]) continue;
            const double v = x[((c * in[0] + q[0]) * in[1] + q[1]) * in[2] + q[2]];
            best = std::max(best, v);
            sum += v;
          }
        }
      }
      out.push_back(max ? best : sum / static_cast<double>(count_pad ? padded : count));
    }
  }
  return out;
}

void expect_pool_3d(const std::string& op, const std::vector<int64_t>& in, const Window& p, bool count_pad = false) {
  SCOPED_TRACE(op);
  OnnxModelBuilder b(12);
  b.input("x", {1, 2, in[0], in[1], in[2]}).output("y");
  auto& n = b.node(op, {"x"}, {"y"});
  OnnxModelBuilder::attr(n, "kernel_shape", p.kernel);
  OnnxModelBuilder::attr(n, "strides", p.strides);
  OnnxModelBuilder::attr(n, "pads", p.pads);
  if (p.ceil) OnnxModelBuilder::attr(n, "ceil_mode", int64_t{1});
  if (count_pad) OnnxModelBuilder::attr(n, "count_include_pad", int64_t{1});
  const std::vector<float> x = pattern(2 * in[0] * in[1] * in[2]);
  testing::expect_near_all(testing::run_floats(b, {{"x", x}}).at("y"),
                           reference_3d(op == "MaxPool", x, in, p, count_pad), 1e-6);
}

TEST(OnnxPoolCorners, ThreeDPoolsAreTwoSeparate2DPools) {
  expect_pool_3d("MaxPool", {4, 5, 6}, {{2, 2, 2}, {2, 2, 2}, {}, {1, 1, 1, 1, 1, 1}});
  expect_pool_3d("AveragePool", {5, 4, 6}, {{3, 2, 3}, {1, 2, 2}, {}, {1, 0, 1, 1, 1, 0}});
  expect_pool_3d("AveragePool", {5, 4, 6}, {{3, 2, 3}, {1, 2, 2}, {}, {1, 0, 1, 1, 1, 0}}, true);
  expect_pool_3d("AveragePool", {7, 5, 6}, {{2, 3, 2}, {3, 2, 2}, {}, {0, 0, 0, 0, 0, 0}, true});
}

TEST(OnnxPoolCorners, ADilatedWindowOfManyTapsAndStridesNotItsMultiplesIsRefusedByName) {
  OnnxModelBuilder b(12);
  b.input("x", {1, 1, 40, 40}).output("y");
  auto& n = b.node("MaxPool", {"x"}, {"y"}, "wide");
  OnnxModelBuilder::attr(n, "kernel_shape", std::vector<int64_t>{9, 9});
  OnnxModelBuilder::attr(n, "dilations", std::vector<int64_t>{2, 2});
  OnnxModelBuilder::attr(n, "strides", std::vector<int64_t>{3, 3});
  const std::string why = testing::import_error(b);
  EXPECT_NE(
      why.find(
          "node 'wide' (MaxPool): a dilated window [9,9] whose strides [3,3] are not multiples of its dilations [2,2] is supported up to 64 taps"),
      std::string::npos)
      << why;
}

}  // namespace
}  // namespace tf::graph

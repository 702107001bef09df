// resize2d against ONNX's Resize and Upsample node tests (attributes read from each model.onnx,
// scales, sizes and roi turned into the op's extents as an importer does), against its reference
// for every mode, rounding and coordinate transformation on odd shapes, and its refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ops/resize2d_shape.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"
#include "tests/onnx_node_case.h"
#include "tests/op_kernel_run.h"

namespace tf {
namespace {

class Resize2d : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

// A float32 as the exact fraction num / den, den a power of two, reduced.
std::pair<int64_t, int64_t> dyadic(float v) {
  int e = 0;
  const double m = std::frexp(static_cast<double>(v), &e);  // v = m * 2^e, 0.5 <= |m| < 1
  int64_t num = static_cast<int64_t>(std::ldexp(m, 24)), den = int64_t{1} << 24;
  for (; e > 0; --e) (den % 2 == 0) ? den /= 2 : num *= 2;
  for (; e < 0; ++e) den *= 2;
  while (num % 2 == 0 && den % 2 == 0) num /= 2, den /= 2;
  if (num == 0) den = 1;
  return {num, den};
}

int64_t coordinate_mode(const std::string& name) {
  const char* names[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",  "align_corners",
                         "asymmetric", "tf_crop_and_resize",   "tf_half_pixel_for_nn"};
  for (int64_t i = 0; i < 7; ++i) {
    if (name == names[i]) return i;
  }
  ADD_FAILURE() << "unknown coordinate_transformation_mode " << name;
  return 0;
}

int64_t nearest_mode(const std::string& name) {
  const char* names[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  for (int64_t i = 0; i < 4; ++i) {
    if (name == names[i]) return i;
  }
  ADD_FAILURE() << "unknown nearest_mode " << name;
  return 0;
}

// The op's extents for an ONNX Resize (opset 10+) or Upsample node, as an importer computes them.
ops::Resize2dShape shape_of(const testing_support::NodeCase& c) {
  const graph::Tensor* x = c.input(0);
  ops::Resize2dShape s;
  s.n = x->shape[0], s.c = x->shape[1], s.h = x->shape[2], s.w = x->shape[3];
  s.mode = c.attr_string("mode", "nearest") == "linear" ? 1 : 0;
  const bool upsample = c.node.op_type() == "Upsample" || c.opset < 11;
  // Upsample and Resize-10 scale asymmetrically and take the nearest pixel below.
  s.coord = upsample ? coordinate_mode("asymmetric")
                     : coordinate_mode(c.attr_string("coordinate_transformation_mode", "half_pixel"));
  s.nearest = upsample ? nearest_mode("floor") : nearest_mode(c.attr_string("nearest_mode", "round_prefer_floor"));
  const graph::Tensor* roi = upsample ? nullptr : c.input(1);
  const graph::Tensor* scales = upsample ? c.input(1) : c.input(2);
  const graph::Tensor* sizes = upsample ? nullptr : c.input(3);
  if (scales && scales->size() == 4) {
    std::tie(s.scale_h_num, s.scale_h_den) = dyadic(scales->f32[2]);
    std::tie(s.scale_w_num, s.scale_w_den) = dyadic(scales->f32[3]);
    // ONNX: floor(in * scale), the roi's extent included in tf_crop_and_resize.
    s.oh = static_cast<int64_t>(std::floor(static_cast<double>(s.h) * scales->f32[2]));
    s.ow = static_cast<int64_t>(std::floor(static_cast<double>(s.w) * scales->f32[3]));
  } else {
    EXPECT_TRUE(sizes && sizes->size() == 4);
    s.oh = sizes->i64[2], s.ow = sizes->i64[3];
    s.scale_h_num = s.oh, s.scale_h_den = s.h, s.scale_w_num = s.ow, s.scale_w_den = s.w;
  }
  if (roi && roi->size() == 8 && s.coord == coordinate_mode("tf_crop_and_resize")) {
    const std::pair<int64_t, int64_t> r[4] = {dyadic(roi->f32[2]), dyadic(roi->f32[3]), dyadic(roi->f32[6]),
                                              dyadic(roi->f32[7])};
    s.roi_den = 1;
    for (const auto& [num, den] : r) s.roi_den = std::max(s.roi_den, den);
    int64_t* fields[] = {&s.roi_y0, &s.roi_x0, &s.roi_y1, &s.roi_x1};
    for (int i = 0; i < 4; ++i) *fields[i] = r[i].first * (s.roi_den / r[i].second);
    std::tie(s.extrapolation_num, s.extrapolation_den) = dyadic(c.attr_float("extrapolation_value", 0.0f));
  }
  return s;
}

TEST_F(Resize2d, OnnxNodeTestsMatchTheirExpectedOutputs) {
  int ran = 0;
  for (const auto& entry : std::filesystem::directory_iterator(graph::testing::kNodeTestsDir)) {
    const std::string name = entry.path().filename().string();
    const bool resize = name.rfind("test_resize_", 0) == 0, upsample = name.rfind("test_upsample_", 0) == 0;
    if (!(resize || upsample) || name.find("cubic") != std::string::npos) continue;
    SCOPED_TRACE(name);
    const auto c = testing_support::load_node_case(name, resize ? "Resize" : "Upsample");
    const ops::Resize2dShape s = shape_of(c);
    ASSERT_EQ(c.outputs.at(0).shape, (graph::Shape{s.n, s.c, s.oh, s.ow}));
    const auto out = testing_support::run_op_kernel("resize2d", s.to_vector(), {c.input(0)->f32});
    testing_support::expect_close(out, c.outputs.at(0).f32, s.mode == 0 ? 0.0 : 1e-6, name + " " + s.named());
    ++ran;
  }
  EXPECT_EQ(ran, 15);  // every non-cubic Resize and Upsample test Debian ships
}

// The default config of every mode, rounding and coordinate transformation on shapes not divisible
// by the vector width (up and down, a scale that is not oh/h, a crop window past the input); every
// config (vectorized or not, planes in parallel or not) of a few.
TEST_F(Resize2d, EveryModeMatchesTheReferenceOnOddShapes) {
  auto default_only = [](const std::string& text) {
    testing_support::expect_configs_correct("resize2d", text, 0, 1, false);
  };
  for (int mode = 0; mode < 2; ++mode) {
    for (int coord = 0; coord < 7; ++coord) {
      for (int nearest = 0; nearest < (mode == 0 ? 4 : 1); ++nearest) {
        const std::string modes =
            ",mode=" + std::to_string(mode) + ",coord=" + std::to_string(coord) + ",nearest=" + std::to_string(nearest);
        default_only("n=2,c=3,h=5,w=7,oh=9,ow=19" + modes);
        default_only("c=2,h=8,w=33,oh=3,ow=20" + modes);
        default_only(
            "c=2,h=4,w=5,oh=6,ow=8,scale_h_num=8,scale_h_den=5,scale_w_num=5,scale_w_den=3,roi_den=8,roi_y0=-2,"
            "roi_x0=3,roi_y1=9,roi_x1=7,extrapolation_num=5,extrapolation_den=2" +
            modes);
      }
    }
  }
  for (const char* s : {"c=64,h=32,w=32,oh=64,ow=64,mode=1", "n=2,c=3,h=5,w=7,oh=9,ow=19,coord=3,nearest=1",
                        "c=3,h=9,w=40,oh=4,ow=17,mode=1,coord=5,roi_den=4,roi_y0=1,roi_x0=-1,roi_y1=3,roi_x1=5"}) {
    testing_support::expect_configs_correct("resize2d", s, testing_support::kEveryConfig, 4);
  }
}

TEST_F(Resize2d, NamedShapesReadBackAndNonsenseIsRefusedNamingTheField) {
  const auto shape = ops::parse_shape("resize2d", "c=64,h=32,w=32,oh=64,ow=64,mode=1");
  EXPECT_EQ(ops::find_operator("resize2d").shape_text(shape), "n=1,c=64,h=32,w=32,oh=64,ow=64,mode=1");
  const ops::Resize2dShape s = ops::Resize2dShape::from_vector(shape);
  EXPECT_EQ(s.scale_h_num, 64);
  EXPECT_EQ(s.scale_h_den, 32);
  const std::string odd =
      "c=2,h=4,w=5,oh=6,ow=8,coord=5,scale_h_num=8,scale_h_den=5,roi_den=8,roi_y0=-2,roi_x0=3,roi_y1=9,roi_x1=7";
  const auto odd_shape = ops::parse_shape("resize2d", odd);
  EXPECT_EQ(ops::parse_shape("resize2d", ops::find_operator("resize2d").shape_text(odd_shape)), odd_shape);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"c=1,h=4,w=4,oh=8,ow=8,mode=2", "cubic"},
      {"c=1,h=4,w=4,oh=8,ow=8,mode=3", "mode"},
      {"c=1,h=4,w=4,oh=8,ow=8,coord=7", "coord"},
      {"c=1,h=4,w=4,oh=8,ow=8,nearest=4", "nearest"},
      {"c=1,h=4,w=4,oh=0,ow=8", "oh"},
      {"c=1,h=4,w=4,oh=8,ow=8,scale_w_den=0", "scale_w_den"},
      {"c=1,h=4,w=4,oh=8,ow=8,scale_h_num=-1", "scale_h_num"},
      {"c=1,h=4,w=4,oh=8", "ow="},
  };
  for (const auto& [text, field] : cases) {
    std::string why;
    try {
      ops::check_workload({"resize2d", ops::parse_shape("resize2d", text)});
    } catch (const CompileError& e) {
      why = e.what();
    }
    EXPECT_NE(why.find(field), std::string::npos) << text << ": '" << why << "' does not name " << field;
  }
}

}  // namespace
}  // namespace tf

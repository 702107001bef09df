// conv2d_transpose against its double-precision reference (sampled configs on strided, padded,
// dilated, grouped, depthwise and 1-D shapes), against ONNX's ConvTranspose node tests with the
// pads an importer resolves, and its shape's refusals.
#include <gtest/gtest.h>

#include "compiler/analysis/affine.h"
#include "compiler/ops/conv2d_transpose_shape.h"
#include "runtime/thread_pool.h"
#include "tests/config_check.h"
#include "tests/onnx_node_case.h"
#include "tests/op_kernel_run.h"

namespace tf {
namespace {

class Conv2dTranspose : public ::testing::Test {
 protected:
  void SetUp() override { runtime::set_num_threads(2); }
};

std::string refusal(const std::string& op, const std::string& text) {
  try {
    ops::check_workload({op, ops::parse_shape(op, text)});
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST_F(Conv2dTranspose, SampledConfigsMatchTheReference) {
  const char* shapes[] = {
      "c=3,h=5,w=7,k=4,r=2,s=2,stride=2",                         // FPN's 2x upsampling
      "c=4,h=6,w=9,k=5,r=4,s=4,stride=2,pad=1",                   // DCGAN / U-Net's 4x4
      "c=3,h=5,w=6,k=2,r=3,s=3,stride=2,pad=1,output_padding=1",  // PyTorch's 3x3 s2 p1 op1
      "c=1,h=3,w=3,k=2,r=3,s=3,stride_h=3,stride_w=2,pad_top=1,pad_left=2,pad_bottom=1,pad_right=2",
      "c=2,h=3,w=4,k=1,r=2,s=2,dilation=2",                           // stride 1, dilated
      "c=2,h=5,w=5,k=3,r=3,s=3,stride=2,dilation=2",                  // phases without taps
      "c=2,h=4,w=5,k=2,r=3,s=2,stride=3,dilation=2,pad_top=2",        // gcd 1, uneven taps
      "c=8,h=6,w=10,k=8,r=4,s=4,stride=2,pad=1,group=8",              // depthwise
      "c=4,h=5,w=5,k=6,r=3,s=3,stride=2,group=2",                     // grouped, multiplier 3
      "c=3,h=1,w=17,k=4,r=1,s=4,stride_w=2,pad_left=1,pad_right=1",   // 1-D
      "c=3,h=6,w=6,k=4,r=3,s=3,pad=1",                                // stride 1
      "c=2,h=3,w=3,k=2,r=3,s=3,stride=3,pad_bottom=-1,pad_right=-1",  // output_shape beyond the natural
      "n=2,c=16,h=8,w=20,k=24,r=2,s=2,stride=2",
  };
  uint64_t seed = 1;
  for (const char* s : shapes) testing_support::expect_configs_correct("conv2d_transpose", s, 3, seed++);
  testing_support::expect_configs_correct("conv2d_transpose_bias", "c=5,h=7,w=9,k=6,r=4,s=4,stride=2,pad=1", 4, 99);
}

// The pads of one axis as an importer resolves ONNX's attributes: explicit pads, or with
// output_shape or auto_pad SAME_* the total padding split as ONNX's reference does.
struct ResolvedAxis {
  int64_t begin = 0, end = 0;
};
ResolvedAxis resolve_axis(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t output_padding,
                          int64_t pad_begin, int64_t pad_end, const std::string& auto_pad, int64_t output_shape) {
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (output_shape <= 0 && !same) return {pad_begin, pad_end};
  const int64_t out = output_shape > 0 ? output_shape : in * stride;
  const int64_t total = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out;
  const int64_t half = analysis::floor_div(total, 2);
  if (auto_pad == "SAME_UPPER") return {half, total - half};
  return {total - half, half};
}

TEST_F(Conv2dTranspose, OnnxNodeTestsMatchTheirExpectedOutputs) {
  for (const char* name :
       {"test_convtranspose", "test_convtranspose_1d", "test_convtranspose_autopad_same",
        "test_convtranspose_dilations", "test_convtranspose_kernel_shape", "test_convtranspose_output_shape",
        "test_convtranspose_pad", "test_convtranspose_pads", "test_convtranspose_with_kernel"}) {
    SCOPED_TRACE(name);
    const auto c = testing_support::load_node_case(name, "ConvTranspose");
    const graph::Tensor *x = c.input(0), *w = c.input(1), *b = c.input(2);
    ASSERT_TRUE(x && w);
    const bool one_d = x->shape.size() == 3;
    const int spatial = one_d ? 1 : 2;
    auto per_axis = [&](const std::string& attr, int64_t fallback) {
      auto v = c.attr_ints(attr, std::vector<int64_t>(spatial, fallback));
      if (one_d) v.insert(v.begin(), fallback);
      return v;
    };
    const auto strides = per_axis("strides", 1), dilations = per_axis("dilations", 1),
               out_pad = per_axis("output_padding", 0);
    auto pads = c.attr_ints("pads", std::vector<int64_t>(2 * spatial, 0));
    if (one_d) pads = {0, pads[0], 0, pads[1]};
    auto output_shape = c.attr_ints("output_shape", {});
    if (one_d && !output_shape.empty()) output_shape.insert(output_shape.begin(), 1);
    const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");

    ops::Conv2dTransposeShape sh;
    sh.n = x->shape[0], sh.c = x->shape[1];
    sh.h = one_d ? 1 : x->shape[2], sh.w = x->shape.back();
    sh.group = c.attr_int("group", 1);
    sh.k = w->shape[1] * sh.group;
    sh.r = one_d ? 1 : w->shape[2], sh.s = w->shape.back();
    sh.stride_h = strides[0], sh.stride_w = strides[1], sh.dilation_h = dilations[0], sh.dilation_w = dilations[1];
    sh.output_padding_h = out_pad[0], sh.output_padding_w = out_pad[1];
    const auto ry = resolve_axis(sh.h, sh.r, sh.stride_h, sh.dilation_h, sh.output_padding_h, pads[0], pads[2],
                                 auto_pad, output_shape.empty() ? 0 : output_shape[0]);
    const auto rx = resolve_axis(sh.w, sh.s, sh.stride_w, sh.dilation_w, sh.output_padding_w, pads[1], pads[3],
                                 auto_pad, output_shape.empty() ? 0 : output_shape[1]);
    sh.pad_top = ry.begin, sh.pad_bottom = ry.end, sh.pad_left = rx.begin, sh.pad_right = rx.end;
    EXPECT_EQ(sh.oh(), one_d ? 1 : c.outputs.at(0).shape[2]);
    EXPECT_EQ(sh.ow(), c.outputs.at(0).shape.back());

    std::vector<std::vector<float>> inputs = {x->f32, w->f32};
    if (b) inputs.push_back(b->f32);
    const auto out =
        testing_support::run_op_kernel(b ? "conv2d_transpose_bias" : "conv2d_transpose", sh.to_vector(), inputs);
    testing_support::expect_close(out, c.outputs.at(0).f32, 1e-6, name);
  }
}

TEST_F(Conv2dTranspose, NamedShapesReadBackAndDefaultsApply) {
  const auto shape = ops::parse_shape("conv2d_transpose", "c=256,h=16,w=16,k=256,r=2,s=2,stride=2");
  ops::Conv2dTransposeShape sh = ops::Conv2dTransposeShape::from_vector(shape);
  EXPECT_EQ(sh.oh(), 32);
  EXPECT_EQ(sh.ow(), 32);
  EXPECT_EQ(sh.group, 1);
  for (const char* text :
       {"c=256,h=16,w=16,k=256,r=2,s=2,stride=2",
        "c=4,h=6,w=9,k=5,r=4,s=4,stride_h=2,stride_w=1,pad=1,output_padding_h=1,output_padding_w=0",
        "n=2,c=8,h=6,w=10,k=8,r=4,s=4,group=8,stride=2,dilation=2,pad_top=1,pad_left=0,pad_bottom=2,pad_right=1"}) {
    const auto s = ops::parse_shape("conv2d_transpose", text);
    const std::string back = ops::find_operator("conv2d_transpose").shape_text(s);
    EXPECT_EQ(ops::parse_shape("conv2d_transpose", back), s) << text << " -> " << back;
    EXPECT_EQ(refusal("conv2d_transpose", text), "") << text;
  }
  // 2 * 256 * 256 * 16 * 16 * 2 * 2 multiply-adds.
  EXPECT_EQ(ops::find_operator("conv2d_transpose").flops(shape), int64_t{2} * 256 * 256 * 16 * 16 * 4);
}

TEST_F(Conv2dTranspose, NonsenseShapesAreRefusedNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"c=6,h=4,w=4,k=4,r=2,s=2,group=4", "group"},
      {"c=4,h=4,w=4,k=6,r=2,s=2,group=4", "group"},
      {"c=4,h=1,w=4,k=4,r=1,s=2,pad_top=1", "pad_top"},
      {"c=4,h=4,w=4,k=4,r=2,s=2,pad_left=3,pad_right=2", "pad_left"},
      {"c=4,h=4,w=4,k=4,r=2,s=2,stride_w=0", "stride_w"},
      {"c=4,h=4,w=4,k=4,r=2,s=2,output_padding_h=-1", "output_padding_h"},
      {"c=4,h=4,w=4,k=4,r=2,s=2,dilation=0", "dilation_h"},
      {"c=4,h=4,w=4,k=4,r=2", "s="},
      {"c=4,h=4,w=4,k=4,r=2,s=2,groups=2", "groups"},
  };
  for (const auto& [text, field] : cases) {
    const std::string why = refusal("conv2d_transpose", text);
    EXPECT_NE(why.find(field), std::string::npos) << text << ": '" << why << "' does not name " << field;
  }
}

}  // namespace
}  // namespace tf

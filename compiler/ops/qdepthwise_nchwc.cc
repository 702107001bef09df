// Quantized depthwise conv2d on blocked layouts, the integer form of a QDQ model's
// DequantizeLinear -> Conv(group = C) -> QuantizeLinear (a MobileNet's 3x3 layers): unsigned 8-bit
// data (n, C/b, h, w, b), signed 8-bit weights (C/b, r, s, b), int32 sums of the taps, then the
// requantizing epilogue (requantize.h) with the bias holding the quantized bias less
// x_zero * sum(w) and padding reading the input's zero point, as qconv2d_nchwc does.
//
// Each lane is a channel and each output reads its own channel only, so there is no reduction over
// channels for a dot-product instruction to take: the micro-kernel is the float depthwise one's
// (depthwise_nchwc.h) with the bytes widened to int32 lanes, one multiply-add per tap.
#include "compiler/error.h"
#include "compiler/ops/depthwise_nchwc.h"
#include "compiler/ops/nchwc_operator.h"
#include "compiler/ops/nchwc_ops.h"
#include "compiler/ops/requantize.h"

namespace tf::ops {
namespace {

using ir::Expr;
using te::Tensor;

class QDepthwiseNchwc : public NchwcConvOperator<DepthwiseNchwcShape> {
 public:
  QDepthwiseNchwc(std::string name, bool relu) : NchwcConvOperator(std::move(name), NchwcEpilogue::None), relu_(relu) {}

  std::string description() const override {
    return std::string("out[N,C/b,OH,OW,b] (uint8) = requantize") + (relu_ ? "_relu" : "") +
           "(depthwise_conv2d(data[N,C/b,H,W,b] (uint8), weight[C/b,R,S,b] (int8)) + bias[C/b,b] (int32), "
           "scale[C/b,b], zero_points[2] (int32: input, output))";
  }

  void check_shape(const std::vector<int64_t>& s) const override {
    NchwcConvOperator::check_shape(s);
    if (DepthwiseNchwcShape::from_vector(s).multiplier() != 1)
      throw CompileError("op '" + name_ + "': k must equal c (a channel multiplier of 1)");
  }

  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const auto sh = DepthwiseNchwcShape::from_vector(s);
    return {sh.data_shape(), sh.weight_shape(), {sh.k_blocks(), sh.b}, {sh.k_blocks(), sh.b}, {2}};
  }

  runtime::FillRange input_range(const std::vector<int64_t>& s, int index, ir::DataType type) const override {
    const Conv2dShape& c = DepthwiseNchwcShape::from_vector(s).conv;
    return requantize_input_range(index, c.r * c.s).value_or(NchwcConvOperator::input_range(s, index, type));
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return depthwise_nchwc_space(DepthwiseNchwcShape::from_vector(s), t);
  }
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override;

 private:
  bool relu_;
};

Scheduled QDepthwiseNchwc::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                    const codegen::Target& t) const {
  const auto sh = DepthwiseNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const bool pad_copy = c.padded() && cfg.get_string("pad") == "copy";
  const auto i32 = ir::DataType::int32();

  Tensor data = te::placeholder(sh.data_shape(), ir::DataType::uint8(), "data");
  Tensor weight = te::placeholder(sh.weight_shape(), ir::DataType::int8(), "weight");
  Tensor bias = te::placeholder({sh.k_blocks(), sh.b}, i32, "bias");
  Tensor scale = te::placeholder({sh.k_blocks(), sh.b}, ir::DataType::float32(), "scale");
  Tensor zero_points = te::placeholder({2}, i32, "zero_points");

  const Expr x_zero = ir::make_cast(ir::DataType::uint8(), zero_points(Expr(int64_t{0})));
  const NchwcInput input = nchwc_input(data, c, pad_copy, x_zero);

  Tensor conv = depthwise_tap_sum(sh, input, weight, i32);
  Tensor out = requantize_u8(conv, bias, scale, zero_points, relu_, sh.out_shape());

  Scheduled result = make_scheduled({data, weight, bias, scale, zero_points}, out);
  result.schedule->set_input_order({data, weight, bias, scale, zero_points});  // the padded copy reads zero_points
  schedule_depthwise_nchwc(*result.schedule, conv, out, input, sh, cfg, t);
  return result;
}

void QDepthwiseNchwc::reference(const std::vector<int64_t>& s, const std::vector<const float*>& in,
                                std::vector<float>* out, std::vector<float>* tol) const {
  const auto sh = DepthwiseNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const float *data = in[0], *weight = in[1], *bias = in[2], *scale = in[3];
  const double x_zero = in[4][0], y_zero = in[4][1];
  const int64_t blocks = sh.k_blocks(), oh = c.oh(), ow = c.ow();
  out->assign(static_cast<size_t>(element_count(sh.out_shape())), 0.0f);
  tol->assign(out->size(), 1.0f);  // float32 rounds acc + bias before the scale: one step at a tie
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t kb = 0; kb < blocks; ++kb)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t l = 0; l < sh.b; ++l) {
            double acc = 0;
            for (int64_t ky = 0; ky < c.r; ++ky)
              for (int64_t kx = 0; kx < c.s; ++kx) {
                const int64_t iy = y * c.stride + ky * c.dilation - c.pad_top;
                const int64_t ix = x * c.stride + kx * c.dilation - c.pad_left;
                const bool inside = iy >= 0 && iy < c.h && ix >= 0 && ix < c.w;
                const double v = inside ? data[(((n * blocks + kb) * c.h + iy) * c.w + ix) * sh.b + l] : x_zero;
                acc += v * weight[((kb * c.r + ky) * c.s + kx) * sh.b + l];
              }
            (*out)[static_cast<size_t>((((n * blocks + kb) * oh + y) * ow + x) * sh.b + l)] =
                static_cast<float>(requantize_reference(acc, bias[kb * sh.b + l], scale[kb * sh.b + l], y_zero, relu_));
          }
}

}  // namespace

void register_qdepthwise_nchwc_operators(Registry& r) {
  r.add(std::make_unique<QDepthwiseNchwc>("qdepthwise_nchwc", false));
  r.add(std::make_unique<QDepthwiseNchwc>("qdepthwise_nchwc_relu", true));
}

}  // namespace tf::ops

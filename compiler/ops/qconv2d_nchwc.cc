// Quantized conv2d on blocked layouts, the integer form of a QDQ model's DequantizeLinear -> Conv
// -> QuantizeLinear (ONNX QLinearConv's arithmetic): unsigned 8-bit data (n, C/ib, h, w, ib),
// signed 8-bit weights packed four input channels per output lane (K/ob, C/ib, r, s, ib/4, ob, 4),
// int32 accumulation, then the requantizing epilogue (requantize.h). The bias already holds the
// quantized bias less x_zero * sum(w) (so the input's zero point costs nothing per pixel; the
// weights' zero point is 0, as ONNX Runtime's quantizer writes them) and padding reads the input's
// zero point zero_points[0], the quantized 0.0. The `_relu` variant clamps at the output's zero
// point, which is ReLU in the quantized domain.
//
// The micro-kernel is the float NCHWc one's (conv2d_nchwc.cc) with the input channels of a block
// reduced four at a time, innermost inside the register tile: each step broadcasts four input bytes
// and multiplies them with one 64-byte vector of weights into each accumulator, which
// passes::fuse_dot_products turns into one vpdpbusd (AVX-512 VNNI: 64 multiply-adds per instruction,
// four times the float kernel's 16).
//
// The `_centered` variants take the input bytes less 128: the bias holds the quantized bias less
// (x_zero - 128) * sum(w) instead, and the weights lie within [-127, 127]. Where x86 has no VNNI,
// that makes the exact 4-way product three multiply-add steps instead of six
// (ir::Intrinsic::DotU8S8Centered); plan_layouts picks them for such targets.
#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/nchwc_epilogue.h"
#include "compiler/ops/nchwc_operator.h"
#include "compiler/ops/nchwc_ops.h"
#include "compiler/ops/nchwc_schedule.h"
#include "compiler/ops/nchwc_shape.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/requantize.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

constexpr int64_t kGroup = 4;  // input channels per dot product

class QConv2dNchwc : public NchwcConvOperator<Conv2dNchwcShape> {
 public:
  QConv2dNchwc(std::string name, bool relu, bool centered)
      : NchwcConvOperator(std::move(name), NchwcEpilogue::None), relu_(relu), centered_(centered) {}

  std::string description() const override {
    return std::string("out[N,K/ob,OH,OW,ob] (uint8) = requantize") + (relu_ ? "_relu" : "") + "(conv2d(data" +
           (centered_ ? " - 128" : "") + "[N,C/ib,H,W,ib] (uint8), weight[K/ob,C/ib,R,S,ib/4,ob,4] (int8" +
           (centered_ ? " within [-127, 127]" : "") +
           ")) + bias[K/ob,ob] (int32), scale[K/ob,ob], zero_points[2] (int32: input, output))";
  }

  void check_shape(const std::vector<int64_t>& s) const override {
    NchwcConvOperator::check_shape(s);
    const auto sh = Conv2dNchwcShape::from_vector(s);
    if (sh.conv.c % kGroup != 0 || sh.ib % kGroup != 0) {
      throw CompileError("op '" + name_ + "': c = " + std::to_string(sh.conv.c) + " and ib = " + std::to_string(sh.ib) +
                         " must be multiples of 4 (input channels are reduced in fours)");
    }
    if (sh.conv.groups != 1) throw CompileError("op '" + name_ + "': groups must be 1");
  }

  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const auto sh = Conv2dNchwcShape::from_vector(s);
    return {sh.data_shape(), weight_shape(sh), {sh.k_blocks(), sh.ob}, {sh.k_blocks(), sh.ob}, {2}};
  }

  runtime::FillRange input_range(const std::vector<int64_t>& s, int index, ir::DataType type) const override {
    const Conv2dShape& c = Conv2dNchwcShape::from_vector(s).conv;
    return requantize_input_range(index, c.c * c.r * c.s, centered_)
        .value_or(NchwcConvOperator::input_range(s, index, type));
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override;

 private:
  static std::vector<int64_t> weight_shape(const Conv2dNchwcShape& sh) {
    return {sh.k_blocks(), sh.c_blocks(), sh.conv.r, sh.conv.s, sh.ib / kGroup, sh.ob, kGroup};
  }

  bool relu_, centered_;
};

space::ConfigSpace QConv2dNchwc::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const auto sh = Conv2dNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const int64_t lanes = std::max(1, t.float32_lanes());  // int32 accumulators per vector
  const int64_t vectors_per_block = ceil_div(sh.ob, lanes);
  // Without a one-instruction dot product each step also holds two constants and three partial
  // products in registers (AVX2: a tile of 12 accumulators spills, 8 runs 9% faster on c9).
  const int64_t registers = t.vector_registers - (codegen::has_u8s8_dot_instruction(t) ? 0 : 4);
  space::ConfigSpace cs;
  const RegisterTile def =
      add_register_tile_knobs(cs, c, sh.k_blocks(), vectors_per_block, registers, "broadcast group of input bytes");
  cs.add_knob("unroll_groups", divisor_choices({1, 2, 4}, sh.ib / kGroup), 0,
              "groups of four input channels unrolled together around the micro-kernel");
  cs.add_knob("order", {Json("ic_kh"), Json("kh_ic")}, 0,
              "reduction loops outside the micro-kernel: input-channel blocks then kernel rows, or rows first");
  if (c.padded()) {
    cs.add_knob("pad", {Json("copy"), Json("inline")}, 0,
                "padding as a copy filled with the input's zero point made first, or a guarded read");
  }
  add_parallel_knob(cs, default_parallel(ceil_div(c.oh(), def.oh_tile)));
  // Weights a quarter of the float kernel's size stream from L2 fast enough on 14x14: only the 7x7
  // planes gain (Zen 3, cold weights, 3x3 c512: 67 -> 78 GOPS at 1 thread, 86 -> 109 at 2; c256 on
  // 14x14: 83 -> 75 at 1 thread).
  add_accumulate_knob(cs, c.oh() * c.ow() * sh.ob * def.oc_blocks * 4, 4 * 1024);
  limit_register_tile(cs, {"oc_blocks", "ow_tile", "oh_tile"}, vectors_per_block, registers);
  return cs;
}

Scheduled QConv2dNchwc::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                 const codegen::Target& t) const {
  const auto sh = Conv2dNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t kb = cfg.get_int("oc_blocks"), xt = cfg.get_int("ow_tile"), yt = cfg.get_int("oh_tile");
  const int64_t group_unroll = cfg.get_int("unroll_groups");
  const bool kh_outer = cfg.get_string("order") == "kh_ic";
  const bool pad_copy = c.padded() && cfg.get_string("pad") == "copy";
  const std::string parallel = cfg.get_string("parallel");
  const auto i32 = ir::DataType::int32();

  Tensor data = te::placeholder(sh.data_shape(), ir::DataType::uint8(), "data");
  Tensor weight = te::placeholder(weight_shape(sh), ir::DataType::int8(), "weight");
  Tensor bias = te::placeholder({sh.k_blocks(), sh.ob}, i32, "bias");
  Tensor scale = te::placeholder({sh.k_blocks(), sh.ob}, ir::DataType::float32(), "scale");
  Tensor zero_points = te::placeholder({2}, i32, "zero_points");

  const Expr x_zero = ir::make_cast(ir::DataType::uint8(), zero_points(Expr(int64_t{0})));
  const NchwcInput input = nchwc_input(data, c, pad_copy, x_zero);

  IterVar rc = te::reduce_axis(c.c, "rc"), ry = te::reduce_axis(c.r, "ry"), rx = te::reduce_axis(c.s, "rx");
  Tensor conv = te::compute(sh.out_shape(),
                            [&](const te::Indices& i) {
                              Expr ch = ir::to_expr(rc->var), ky = ir::to_expr(ry->var), kx = ir::to_expr(rx->var);
                              Expr cb = ir::floordiv(ch, Expr(sh.ib)), ci = ir::floormod(ch, Expr(sh.ib));
                              Expr iy = i[2] * Expr(c.stride) + ky * Expr(c.dilation);
                              Expr ix = i[3] * Expr(c.stride) + kx * Expr(c.dilation);
                              Expr x = ir::make_cast(i32, input.at(i[0], cb, iy, ix, ci));
                              if (centered_) x = x - Expr(ir::make_int(kCenteredOffset, i32));
                              Expr w = ir::make_cast(i32, weight(i[1], cb, ky, kx, ir::floordiv(ci, Expr(kGroup)), i[4],
                                                                 ir::floormod(ci, Expr(kGroup))));
                              return te::sum(x * w, {rc, ry, rx});
                            },
                            "conv", {"n", "ko", "y", "x", "l"});
  Tensor out = requantize_u8(conv, bias, scale, zero_points, relu_, sh.out_shape());

  Scheduled result = make_scheduled({data, weight, bias, scale, zero_points}, out);
  schedule::Schedule& sch = *result.schedule;
  sch.set_input_order({data, weight, bias, scale, zero_points});  // the padded copy reads zero_points first
  const bool plane = accumulates_plane(cfg);
  Tensor tile = plane ? plane_nchwc_output(sch, conv, out, {kb, yt, xt}, sh.ob, lanes, parallel)
                      : tile_nchwc_output(sch, conv, out, {kb, yt, xt}, sh.ob, lanes, parallel);

  schedule::Stage& r = sch[tile];
  IterVar tn = r.axis(0), tk = r.axis(1), ty = r.axis(2), tx = r.axis(3), tl = r.axis(4);
  auto [rc_o, rc_i] = r.split(r.reduce_axis(0), sh.ib);
  auto [groups, in_group] = r.split(rc_i, kGroup);
  auto [groups_o, groups_u] = r.split(groups, group_unroll);
  IterVar tr = r.reduce_axis(1), ts = r.reduce_axis(2);
  std::vector<IterVar> order = kh_outer ? std::vector<IterVar>{tn, tr, rc_o} : std::vector<IterVar>{tn, rc_o, tr};
  if (plane) append_plane_tiles(r, {kb, yt, xt}, &ty, &tx, &order);
  order.insert(order.end(), {ts, groups_o, groups_u, ty, tx, tk, in_group, tl});
  r.reorder(order);
  if (group_unroll > 1) r.unroll(groups_u);
  r.unroll(ty);
  r.unroll(tx);
  r.unroll(tk);
  r.unroll(in_group);
  vectorize_lanes(r, tl, sh.ob, lanes);

  if (pad_copy) schedule_padded_copy(sch[input.padded], parallel, sh.ib, lanes);
  return result;
}

void QConv2dNchwc::reference(const std::vector<int64_t>& s, const std::vector<const float*>& in,
                             std::vector<float>* out, std::vector<float>* tol) const {
  const auto sh = Conv2dNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const float *data = in[0], *weight = in[1], *bias = in[2], *scale = in[3];
  const double x_zero = in[4][0], y_zero = in[4][1];
  const int64_t cb = sh.c_blocks(), oh = c.oh(), ow = c.ow();
  out->assign(static_cast<size_t>(element_count(sh.out_shape())), 0.0f);
  // float32 rounds acc + bias (up to 2^31) before the scale: one step either way at a tie.
  tol->assign(out->size(), 1.0f);
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t k = 0; k < sh.k_blocks() * sh.ob; ++k) {
      const int64_t ko = k / sh.ob, l = k % sh.ob;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = 0;
          for (int64_t ch = 0; ch < c.c; ++ch)
            for (int64_t ky = 0; ky < c.r; ++ky)
              for (int64_t kx = 0; kx < c.s; ++kx) {
                const int64_t iy = y * c.stride + ky * c.dilation - c.pad_top;
                const int64_t ix = x * c.stride + kx * c.dilation - c.pad_left;
                const int64_t b = ch / sh.ib, ci = ch % sh.ib;
                const bool inside = iy >= 0 && iy < c.h && ix >= 0 && ix < c.w;
                const double v = (inside ? data[(((n * cb + b) * c.h + iy) * c.w + ix) * sh.ib + ci] : x_zero) -
                                 (centered_ ? kCenteredOffset : 0);
                const int64_t wi =
                    (((((ko * cb + b) * c.r + ky) * c.s + kx) * (sh.ib / kGroup) + ci / kGroup) * sh.ob + l) * kGroup +
                    ci % kGroup;
                acc += v * weight[wi];
              }
          (*out)[static_cast<size_t>((((n * sh.k_blocks() + ko) * oh + y) * ow + x) * sh.ob + l)] =
              static_cast<float>(requantize_reference(acc, bias[ko * sh.ob + l], scale[ko * sh.ob + l], y_zero, relu_));
        }
    }
}

}  // namespace

void register_qconv2d_nchwc_operators(Registry& r) {
  r.add(std::make_unique<QConv2dNchwc>("qconv2d_nchwc", false, false));
  r.add(std::make_unique<QConv2dNchwc>("qconv2d_nchwc_relu", true, false));
  r.add(std::make_unique<QConv2dNchwc>("qconv2d_nchwc_centered", false, true));
  r.add(std::make_unique<QConv2dNchwc>("qconv2d_nchwc_centered_relu", true, true));
}

}  // namespace tf::ops

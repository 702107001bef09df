// conv2d on blocked layouts (NCHWc): data (n, C/ib, h, w, ib), packed weight (K/ob, C/ib, r, s, ib,
// ob), output (n, K/ob, oh, ow, ob), with the fused epilogues of CNN layers. The template follows
// NeoCPU (Liu et al., USENIX ATC'19) and TVM's x86 conv2d_NCHWc schedules.
//
// The micro-kernel holds a register tile of `oc_blocks` output-channel blocks x `oh_tile` rows x
// `ow_tile` columns, each entry one vector of ob output channels. For every input channel of the
// reduction it loads oc_blocks weight vectors (contiguous in the packed weight), broadcasts one input
// value per output pixel of the tile and does one FMA per accumulator: no shuffles, no gathers, and
// with stride 1 each broadcast reads the next float of the same cache line.
#include <algorithm>

#include "compiler/error.h"
#include "compiler/ops/nchwc_epilogue.h"
#include "compiler/ops/nchwc_operator.h"
#include "compiler/ops/nchwc_ops.h"
#include "compiler/ops/nchwc_schedule.h"
#include "compiler/ops/nchwc_shape.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

class Conv2dNchwc : public NchwcConvOperator<Conv2dNchwcShape> {
 public:
  using NchwcConvOperator::NchwcConvOperator;

  std::string description() const override {
    return "out[N,K/ob,OH,OW,ob] = " + describe_epilogue(epilogue_,
                                                         "conv2d(data[N,C/ib,H,W,ib], weight[K/ob,C/ib,R,S,ib,ob])",
                                                         "bias[K/ob,ob]", "residual[N,K/ob,OH,OW,ob]");
  }

  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const auto sh = Conv2dNchwcShape::from_vector(s);
    return inputs_with_epilogue(sh, sh.weight_shape());
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    conv2d_nchwc_reference(Conv2dNchwcShape::from_vector(s), in[0], in[1], has_bias(epilogue_) ? in[2] : nullptr,
                           has_residual(epilogue_) ? in[3] : nullptr, has_relu(epilogue_), has_clip(epilogue_), out,
                           tol);
  }
};

space::ConfigSpace Conv2dNchwc::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const auto sh = Conv2dNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t vectors_per_block = ceil_div(sh.ob, lanes);
  space::ConfigSpace cs;
  const RegisterTile def =
      add_register_tile_knobs(cs, c, sh.k_blocks(), vectors_per_block, t.vector_registers, "broadcast input value");
  if (c.s > 1) {
    // Unrolled, neighbouring taps read the same inputs and LLVM keeps their broadcasts live across
    // the taps: with a full register tile that spills, so the default keeps kw a loop.
    cs.add_knob(
        "unroll_kw", {Json(false), Json(true)}, 0,
        "keep the kernel width a loop outside the input-channel block (kw, ic_inner) or unroll it inside (ic_inner, kw)");
  }
  // With 16 vector registers (AVX2) the tile holds 12 accumulators, a dozen FMAs per input
  // channel against its loads and loop: four channels unrolled feed it more independent work
  // (ResNet-18 3x3 c64: 65 -> 88 GFLOPS; MobileNetV2 1x1 c96 k576: 52 -> 73; the rest within 2%).
  const auto ic_unroll = divisor_choices({1, 2, 4}, std::min(sh.ib, c.c));
  cs.add_knob(
      "unroll_ic", ic_unroll, t.vector_registers < 32 ? ic_unroll.size() - 1 : 0,
      "input channels of a block unrolled together around the micro-kernel (more independent loads in flight, longer code)");
  cs.add_knob(
      "order", {Json("ic_kh"), Json("kh_ic")}, 0,
      "reduction loops outside the micro-kernel: input-channel blocks then kernel rows (ic_kh) or kernel rows first (kh_ic)");
  if (c.padded()) {
    // The default copies: the guarded read leaves interior tiles select-free only where the tile
    // loops are not fused into the parallel loop (partition_loops cannot cut a fused loop). An input
    // of fewer channels than a vector (a first layer) reads guarded: the copy would cost as much as
    // the few multiplies each input feeds (MobileNetV2's first conv, 1 thread: 0.126 -> 0.106 ms).
    const bool few_channels = c.c < lanes;
    cs.add_knob(
        "pad", {Json("copy"), Json("inline")}, few_channels ? 1 : 0,
        "padding as a zero-padded copy made first (copy) or a guarded read the edge tiles keep and interior tiles drop (inline)");
  }
  // Many row tiles: share them out alone, so each thread's rows read each input row once for all its
  // channel blocks (a first layer's 112 rows: 2x the fused loop's speed at 2 threads). Few rows
  // (7 or 14): rows and blocks fused, whose more iterations balance the threads.
  add_parallel_knob(cs, default_parallel(ceil_div(c.oh(), def.oh_tile)));
  // A plane whose accumulators stay in L1 (a 7x7 or 14x14 layer) reads each block of weights from
  // L1 once per tile instead of from L2: ResNet-18's 3x3 c512 on 7x7 with cold weights, Zen 3: 56 ->
  // 74 GFLOPS at 1 thread, 77 -> 121 at 2; c256 on 14x14: 64 -> 80; a 1x1 c960 -> 160 on 7x7: 69 ->
  // 86. A 56x56 plane (200 KB) does not fit: 80 -> 31. Up to 16 KB leaves most of a 32 KB L1 to
  // the weights and inputs.
  add_accumulate_knob(cs, c.oh() * c.ow() * sh.ob * def.oc_blocks * 4, 16 * 1024);
  limit_register_tile(cs, {"oc_blocks", "ow_tile", "oh_tile"}, vectors_per_block, t.vector_registers);
  return cs;
}

Scheduled Conv2dNchwc::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                const codegen::Target& t) const {
  const auto sh = Conv2dNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t kb = cfg.get_int("oc_blocks"), xt = cfg.get_int("ow_tile");
  const int64_t yt = cfg.get_int("oh_tile"), ic_unroll = cfg.get_int("unroll_ic");
  const bool unroll_kw = c.s > 1 && cfg.get_bool("unroll_kw");
  const bool kh_outer = cfg.get_string("order") == "kh_ic";
  const bool pad_copy = c.padded() && cfg.get_string("pad") == "copy";
  const std::string parallel = cfg.get_string("parallel");
  const auto dt = ir::DataType::float32();

  Tensor data = te::placeholder(sh.data_shape(), dt, "data");
  Tensor weight = te::placeholder(sh.weight_shape(), dt, "weight");
  Tensor bias, residual;
  if (has_bias(epilogue_)) bias = te::placeholder({sh.k_blocks(), sh.ob}, dt, "bias");
  if (has_residual(epilogue_)) residual = te::placeholder(sh.out_shape(), dt, "residual");

  const NchwcInput input = nchwc_input(data, c, pad_copy);

  // One reduction over the real input channels: a ragged last block is the tail of its split by
  // ib, so the padded channels are never read.
  IterVar rc = te::reduce_axis(c.c, "rc"), ry = te::reduce_axis(c.r, "ry"), rx = te::reduce_axis(c.s, "rx");
  Tensor conv =
      te::compute(sh.out_shape(),
                  [&](const te::Indices& i) {
                    Expr ch = ir::to_expr(rc->var), ky = ir::to_expr(ry->var), kx = ir::to_expr(rx->var);
                    Expr cb = ir::floordiv(ch, Expr(sh.ib)), ci = ir::floormod(ch, Expr(sh.ib));
                    Expr iy = i[2] * Expr(c.stride) + ky * Expr(c.dilation);
                    Expr ix = i[3] * Expr(c.stride) + kx * Expr(c.dilation);
                    return te::sum(input.at(i[0], cb, iy, ix, ci) * weight(i[1], cb, ky, kx, ci, i[4]), {rc, ry, rx});
                  },
                  "conv", {"n", "ko", "y", "x", "l"});
  Tensor out = nchwc_output(epilogue_, conv, bias, residual, c.k, sh.ob);

  Scheduled result = make_scheduled({data, weight, bias, residual}, out);
  schedule::Schedule& sch = *result.schedule;
  const bool plane = accumulates_plane(cfg);
  Tensor tile = plane ? plane_nchwc_output(sch, conv, out, {kb, yt, xt}, sh.ob, lanes, parallel)
                      : tile_nchwc_output(sch, conv, out, {kb, yt, xt}, sh.ob, lanes, parallel);

  schedule::Stage& r = sch[tile];
  IterVar tn = r.axis(0), tk = r.axis(1), ty = r.axis(2), tx = r.axis(3), tl = r.axis(4);
  auto [rc_o, rc_i] = r.split(r.reduce_axis(0), std::min(sh.ib, c.c));
  IterVar tr = r.reduce_axis(1), ts = r.reduce_axis(2);
  auto [rc_i_o, rc_i_u] = r.split(rc_i, ic_unroll);
  std::vector<IterVar> order = kh_outer ? std::vector<IterVar>{tn, tr, rc_o} : std::vector<IterVar>{tn, rc_o, tr};
  if (plane) append_plane_tiles(r, {kb, yt, xt}, &ty, &tx, &order);
  if (unroll_kw)
    order.insert(order.end(), {rc_i_o, rc_i_u, ts});
  else
    order.insert(order.end(), {ts, rc_i_o, rc_i_u});
  order.insert(order.end(), {ty, tx, tk, tl});
  r.reorder(order);
  if (unroll_kw) r.unroll(ts);
  if (ic_unroll > 1) r.unroll(rc_i_u);
  r.unroll(ty);
  r.unroll(tx);
  r.unroll(tk);
  vectorize_lanes(r, tl, sh.ob, lanes);

  if (pad_copy) schedule_padded_copy(sch[input.padded], parallel, sh.ib, lanes);
  return result;
}

}  // namespace

void register_conv2d_nchwc_operators(Registry& r) {
  r.add(std::make_unique<Conv2dNchwc>("conv2d_nchwc", NchwcEpilogue::None));
  r.add(std::make_unique<Conv2dNchwc>("conv2d_nchwc_bias", NchwcEpilogue::Bias));
  r.add(std::make_unique<Conv2dNchwc>("conv2d_nchwc_bias_relu", NchwcEpilogue::BiasRelu));
  r.add(std::make_unique<Conv2dNchwc>("conv2d_nchwc_bias_add", NchwcEpilogue::BiasAdd));
  r.add(std::make_unique<Conv2dNchwc>("conv2d_nchwc_bias_add_relu", NchwcEpilogue::BiasAddRelu));
  r.add(std::make_unique<Conv2dNchwc>("conv2d_nchwc_bias_clip", NchwcEpilogue::BiasClip));
  register_depthwise_nchwc_operators(r);
  register_layout_operators(r);
  register_conv2d_winograd_operators(r);
  register_qconv2d_nchwc_operators(r);
  register_qdepthwise_nchwc_operators(r);
}

}  // namespace tf::ops

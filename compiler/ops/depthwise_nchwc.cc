// Depthwise conv2d on blocked layouts: data (n, C/b, h, w, b), weight (K/b, r, s, b), output
// (n, K/b, oh, ow, b), channel multiplier 1 or 2, with the fused epilogues.
//
// Each output channel reads one input channel, so the blocked layout makes the micro-kernel a
// vector x vector FMA per kernel tap with the lanes being channels: no broadcasts and no shuffles
// (multiplier 1; with 2 each input lane feeds two output lanes and the read is a gather). A tile
// of oh_tile x ow_tile output pixels shares input vectors between neighbouring taps, so with the
// kernel unrolled it loads each input vector of the tile's window once.
#include <algorithm>

#include "compiler/ops/depthwise_nchwc.h"
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

class DepthwiseNchwc : public NchwcConvOperator<DepthwiseNchwcShape> {
 public:
  using NchwcConvOperator::NchwcConvOperator;

  std::string description() const override {
    return "out[N,K/b,OH,OW,b] = " +
           describe_epilogue(epilogue_, "depthwise_conv2d(data[N,C/b,H,W,b], weight[K/b,R,S,b])", "bias[K/b,b]", "") +
           ", K = C or 2C";
  }

  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const auto sh = DepthwiseNchwcShape::from_vector(s);
    std::vector<std::vector<int64_t>> in = {sh.data_shape(), sh.weight_shape()};
    if (has_bias(epilogue_)) in.push_back({sh.k_blocks(), sh.b});
    return in;
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return depthwise_nchwc_space(DepthwiseNchwcShape::from_vector(s), t);
  }
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    depthwise_nchwc_reference(DepthwiseNchwcShape::from_vector(s), in[0], in[1], has_bias(epilogue_) ? in[2] : nullptr,
                              has_relu(epilogue_), has_clip(epilogue_), out, tol);
  }
};

}  // namespace

space::ConfigSpace depthwise_nchwc_space(const DepthwiseNchwcShape& sh, const codegen::Target& t) {
  const Conv2dShape& c = sh.conv;
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t vectors_per_block = ceil_div(sh.b, lanes);
  space::ConfigSpace cs;
  auto kb = int_choices({1, 2, 4}, sh.k_blocks());
  cs.add_knob("oc_blocks", kb, 0,
              "channel blocks per micro-kernel (independent channels: more work in flight, no reuse)");
  // One row of about 8 accumulator vectors (a narrow row whole where its vectors fit): a depthwise
  // layer is bound by memory more than by FMAs, and wider tiles measured slower while they compile
  // longer. AVX2's two vectors per 16-channel block make that 4 columns: MobileNetV2's layers tuned
  // there kept 4 nearly everywhere, and whole 14-column rows (28 vectors) ran at half their speed.
  const int64_t rows = 1;
  const bool unrolled = c.r * c.s <= 25;
  const bool whole_row = c.ow() <= 16 && c.ow() * vectors_per_block <= accumulator_budget(t.vector_registers);
  const int64_t columns = whole_row ? c.ow() : default_ow_tile(c.ow(), rows * vectors_per_block, 8);
  auto ow = ow_tile_choices(c.ow());
  cs.add_knob("ow_tile", ow, space::index_of_choice(ow, columns), "output columns per micro-kernel");
  auto oh = int_choices({1, 2, 4}, c.oh());
  cs.add_knob("oh_tile", oh, space::index_of_choice(oh, rows), "output rows per micro-kernel");
  cs.add_knob("unroll_kernel", {Json(true), Json(false)}, unrolled ? 0 : 1,
              "unroll the kernel taps, so neighbouring taps share the input vectors they load");
  if (c.padded()) {
    // A copy costs a depthwise layer about as much as its FMAs: the guarded read is the default.
    cs.add_knob(
        "pad", {Json("inline"), Json("copy")}, 0,
        "padding as a guarded read the edge tiles keep and interior tiles drop (inline) or a zero-padded copy made first (copy)");
  }
  // Rows alone where there are many: the tile loops stay free to be cut at the padded edges (fused
  // loops cost the interior its select-free tiles); few rows fuse in the blocks to balance the threads.
  add_parallel_knob(cs, default_parallel(c.oh()));
  limit_register_tile(cs, {"oc_blocks", "ow_tile", "oh_tile"}, vectors_per_block, t.vector_registers);
  return cs;
}

namespace {

Scheduled DepthwiseNchwc::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                   const codegen::Target& t) const {
  const auto sh = DepthwiseNchwcShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const bool pad_copy = c.padded() && cfg.get_string("pad") == "copy";
  const auto dt = ir::DataType::float32();

  Tensor data = te::placeholder(sh.data_shape(), dt, "data");
  Tensor weight = te::placeholder(sh.weight_shape(), dt, "weight");
  Tensor bias;
  if (has_bias(epilogue_)) bias = te::placeholder({sh.k_blocks(), sh.b}, dt, "bias");

  const NchwcInput input = nchwc_input(data, c, pad_copy);

  Tensor conv = depthwise_tap_sum(sh, input, weight, dt);
  Tensor out = nchwc_output(epilogue_, conv, bias, Tensor(), c.k, sh.b);

  Scheduled result = make_scheduled({data, weight, bias}, out);
  schedule_depthwise_nchwc(*result.schedule, conv, out, input, sh, cfg, t);
  return result;
}

}  // namespace

te::Tensor depthwise_tap_sum(const DepthwiseNchwcShape& sh, const NchwcInput& input, const te::Tensor& weight,
                             ir::DataType accumulate) {
  const Conv2dShape& c = sh.conv;
  const int64_t m = sh.multiplier();
  const auto widened = [&](Expr e) { return e.type() == accumulate ? e : ir::make_cast(accumulate, e); };
  IterVar ry = te::reduce_axis(c.r, "ry"), rx = te::reduce_axis(c.s, "rx");
  return te::compute(
      sh.out_shape(),
      [&](const te::Indices& i) {
        Expr ky = ir::to_expr(ry->var), kx = ir::to_expr(rx->var);
        Expr iy = i[2] * Expr(c.stride) + ky * Expr(c.dilation);
        Expr ix = i[3] * Expr(c.stride) + kx * Expr(c.dilation);
        Expr cb = i[1], ci = i[4];
        if (m != 1) {
          Expr ic = ir::floordiv(i[1] * Expr(sh.b) + i[4], Expr(m));
          cb = ir::floordiv(ic, Expr(sh.b));
          ci = ir::floormod(ic, Expr(sh.b));
        }
        return te::sum(widened(input.at(i[0], cb, iy, ix, ci)) * widened(weight(i[1], ky, kx, i[4])), {ry, rx});
      },
      "conv", {"n", "ko", "y", "x", "l"});
}

void schedule_depthwise_nchwc(schedule::Schedule& sch, const te::Tensor& conv, const te::Tensor& out,
                              const NchwcInput& input, const DepthwiseNchwcShape& sh, const space::Config& cfg,
                              const codegen::Target& t) {
  const Conv2dShape& c = sh.conv;
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t kb = cfg.get_int("oc_blocks"), xt = cfg.get_int("ow_tile"), yt = cfg.get_int("oh_tile");
  const bool unroll_kernel = cfg.get_bool("unroll_kernel");
  const bool pad_copy = c.padded() && cfg.get_string("pad") == "copy";
  const std::string parallel = cfg.get_string("parallel");
  Tensor tile = tile_nchwc_output(sch, conv, out, {kb, yt, xt}, sh.b, lanes, parallel);

  schedule::Stage& r = sch[tile];
  IterVar tn = r.axis(0), tk = r.axis(1), ty = r.axis(2), tx = r.axis(3), tl = r.axis(4);
  IterVar tr = r.reduce_axis(0), ts = r.reduce_axis(1);
  r.reorder({tn, tk, tr, ts, ty, tx, tl});
  if (unroll_kernel) {
    r.unroll(tr);
    r.unroll(ts);
  }
  r.unroll(tk);
  r.unroll(ty);
  r.unroll(tx);
  vectorize_lanes(r, tl, sh.b, lanes);

  if (pad_copy) schedule_padded_copy(sch[input.padded], parallel, sh.b, lanes);
}

void register_depthwise_nchwc_operators(Registry& r) {
  r.add(std::make_unique<DepthwiseNchwc>("depthwise_nchwc", NchwcEpilogue::None));
  r.add(std::make_unique<DepthwiseNchwc>("depthwise_nchwc_bias", NchwcEpilogue::Bias));
  r.add(std::make_unique<DepthwiseNchwc>("depthwise_nchwc_bias_relu", NchwcEpilogue::BiasRelu));
  r.add(std::make_unique<DepthwiseNchwc>("depthwise_nchwc_bias_clip", NchwcEpilogue::BiasClip));
}

}  // namespace tf::ops

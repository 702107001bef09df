// conv2d_transpose (ONNX ConvTranspose) on NCHW with weight [c, k/group, r, s] and optional bias,
// as a polyphase convolution. Output row oy lies on phase p = (oy + pad_top) mod stride_h, and
// only the taps ky with ky * dilation_h = p (mod stride_h) reach it, each from input row
// iy = (oy + pad_top - ky * dilation_h) / stride_h: per phase an ordinary correlation over a
// fixed subset of the taps, with no divisibility test in the loop.
//
// The template computes a tile of "phase planes" P[k, u, v, vx, ux] (output row u * stride_h + v,
// column ux * stride_w + vx) in registers: for each input channel and tap it broadcasts one weight
// per (channel, phase) into FMAs over contiguous input vectors along ux, as conv2d does. The
// output stage interleaves the column phases (shuffles, or a strided store: the `interleave`
// knob) and adds the bias. The weight is repacked per call into the tile's order. Row
// and column phases are unrolled, so every tap index, validity test and input offset folds to a
// constant. Tiles are aligned to whole phase periods, so no phase is computed twice.
#include <algorithm>
#include <functional>
#include <numeric>

#include "compiler/analysis/affine.h"
#include "compiler/ops/conv2d_transpose_shape.h"
#include "compiler/ops/registry.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

// One spatial axis of the polyphase decomposition. Output index o = u * stride + v (v the phase
// slot of the tile, u the period); its taps are tap(v, j) for j < taps, read from input index
// input(u, v, j), counted from `lo`. Everything is an IR expression so the kernel computes it;
// with v and j constant (unrolled) the simplifier folds it away.
struct PhaseAxis {
  int64_t stride, dilation, kernel, pad, in;
  int64_t g, sp, inv, taps;  // gcd(stride, dilation), stride / g, inverse of dilation / g mod sp
  int64_t lo, span;          // the input indices the tile domain reads: [lo, lo + span)

  PhaseAxis(int64_t stride_, int64_t dilation_, int64_t kernel_, int64_t pad_, int64_t in_, int64_t periods)
      : stride(stride_), dilation(dilation_), kernel(kernel_), pad(pad_), in(in_) {
    g = std::gcd(stride, dilation);
    sp = stride / g;
    const int64_t dp = (dilation / g) % sp;
    inv = 0;
    for (int64_t x = 0; x < sp; ++x) {
      if ((dp * x) % sp == 1 % sp) {
        inv = x;
        break;
      }
    }
    taps = (kernel + sp - 1) / sp;
    const int64_t m_max = analysis::floor_div((taps * sp - 1) * dilation, stride);
    // A phase without taps (g > 1) reads one index past the others through its clamped tap.
    const int64_t m_min = g > 1 ? -1 : 0;
    const int64_t q_min = analysis::floor_div(pad, stride), q_max = analysis::floor_div(stride - 1 + pad, stride);
    lo = q_min - m_max;
    span = (periods - 1 + q_max - m_min) - lo + 1;
  }

  Expr phase(Expr v) const { return ir::floormod(v + Expr(pad), Expr(stride)); }
  Expr tap(Expr v, Expr j) const {
    Expr first = ir::floormod(ir::floordiv(phase(v), Expr(g)) * Expr(inv), Expr(sp));
    return first + j * Expr(sp);
  }
  // Index into the input counted from lo.
  Expr input(Expr u, Expr v, Expr j) const {
    Expr q = ir::floordiv(v + Expr(pad), Expr(stride));
    Expr m = ir::floordiv(tap(v, j) * Expr(dilation) - phase(v), Expr(stride));
    return u + q - m - Expr(lo);
  }
  // Every (phase, tap) pair is a real tap: no residue without taps, no phase with fewer taps.
  bool exact() const { return g == 1 && kernel % sp == 0; }
  Expr valid(Expr v, Expr j) const {
    return ir::logical_and(ir::floormod(phase(v), Expr(g)) == Expr(int64_t{0}), tap(v, j) < Expr(kernel));
  }
  bool needs_padding() const { return lo < 0 || lo + span > in; }
};

class Conv2dTranspose : public Operator {
 public:
  Conv2dTranspose(std::string name, bool bias) : name_(std::move(name)), bias_(bias) {}

  std::string name() const override { return name_; }
  std::string description() const override {
    return std::string("out[N,K,OH,OW] = conv_transpose(data[N,C,H,W], weight[C,K/group,R,S])") +
           (bias_ ? " + bias[K]" : "");
  }
  std::vector<std::string> shape_names() const override { return Conv2dTransposeShape::names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Conv2dTransposeShape::from_named(named).to_vector();
  }
  void check_shape(const std::vector<int64_t>& s) const override { shape(s).check(name_); }
  std::string shape_text(const std::vector<int64_t>& s) const override { return shape(s).named(); }
  int64_t flops(const std::vector<int64_t>& s) const override { return shape(s).flops(); }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const Conv2dTransposeShape sh = shape(s);
    std::vector<std::vector<int64_t>> in = {{sh.n, sh.c, sh.h, sh.w}, {sh.c, sh.k_per_group(), sh.r, sh.s}};
    if (bias_) in.push_back({sh.k});
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    const Conv2dTransposeShape sh = shape(s);
    return {sh.n, sh.k, sh.oh(), sh.ow()};
  }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    conv2d_transpose_reference(shape(s), in[0], in[1], bias_ ? in[2] : nullptr, out, tol);
  }

 private:
  static Conv2dTransposeShape shape(const std::vector<int64_t>& s) { return Conv2dTransposeShape::from_vector(s); }
  std::string name_;
  bool bias_;
};

space::ConfigSpace Conv2dTranspose::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const Conv2dTransposeShape sh = shape(s);
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t periods_x = (sh.ow() + sh.stride_w - 1) / sh.stride_w;
  space::ConfigSpace cs;
  auto xw = space::capped_choices({4, 8, lanes, 2 * lanes, 4 * lanes}, periods_x);
  xw.erase(std::unique(xw.begin(), xw.end()), xw.end());
  const size_t default_xw = space::index_of_choice(xw, std::min(periods_x, lanes));
  const int64_t vectors = (xw[default_xw].get<int64_t>() + lanes - 1) / lanes;
  // About 16 accumulator vectors: every phase of the tile is one set of them.
  const int64_t phases = sh.stride_h * sh.stride_w;
  // Tiles beyond 32 accumulator sets only spill and take long to compile.
  std::vector<int64_t> kb_options;
  for (int64_t b : {1, 2, 4, 8, 16}) {
    if (b == 1 || b * phases <= 32) kb_options.push_back(b);
  }
  auto kb = space::capped_choices(kb_options, sh.k);
  cs.add_knob("kb", kb, space::index_of_choice(kb, std::max<int64_t>(1, 16 / (phases * vectors))),
              "output channels per register tile");
  cs.add_knob("xw", xw, default_xw, "column periods (stride_w output columns each) per tile, vectorized");
  auto yt = space::capped_choices({1, 2, 4}, (sh.oh() + sh.stride_h - 1) / sh.stride_h);
  cs.add_knob("yt", yt, 0, "row periods (stride_h output rows each) per tile");
  cs.add_knob("order", {Json("crs"), Json("rsc")}, 0,
              "reduction order in a tile: input channels outermost (crs) or kernel taps outermost (rsc)");
  cs.add_knob("pack_weight", {Json(true), Json(false)}, 0,
              "repack the weight per call so a tile's weights are contiguous ([k/kb][c/group][r][s][kb])");
  if (sh.stride_w > 1) {
    cs.add_knob(
        "interleave", {Json("shuffle"), Json("scatter")}, 0,
        "how the column phases reach the output: per-column copies LLVM turns into shuffles, or strided vector stores");
  }
  cs.add_knob("unroll_taps", {Json(true), Json(false)}, 0, "unroll the taps of a phase along the width");
  cs.add_knob("parallel", {Json("nky"), Json("nk"), Json("none")}, 0,
              "loops the thread pool shares out: batch x channel blocks x row tiles, batch x channel blocks, none");
  return cs;
}

Scheduled Conv2dTranspose::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                    const codegen::Target& t) const {
  const Conv2dTransposeShape sh = shape(s);
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t kb = cfg.get_int("kb"), xw = cfg.get_int("xw"), yt = cfg.get_int("yt");
  const bool taps_outer = cfg.get_string("order") == "rsc", unroll_taps = cfg.get_bool("unroll_taps");
  const std::string parallel = cfg.get_string("parallel");
  const bool pack = cfg.get_bool("pack_weight");
  const std::string interleave = sh.stride_w > 1 ? cfg.get_string("interleave") : "scatter";
  const int64_t OH = sh.oh(), OW = sh.ow(), CG = sh.c_per_group(), KG = sh.k_per_group();
  const int64_t SH = sh.stride_h, SW = sh.stride_w, YT = yt * SH, XT = xw * SW;
  // The phase planes cover whole tiles, so a tile never reads past them.
  const int64_t U = (OH + YT - 1) / YT * yt, UX = (OW + XT - 1) / XT * xw;
  const PhaseAxis ay(SH, sh.dilation_h, sh.r, sh.pad_top, sh.h, U);
  const PhaseAxis ax(SW, sh.dilation_w, sh.s, sh.pad_left, sh.w, UX);
  const auto f32 = ir::DataType::float32();

  Tensor data = te::placeholder({sh.n, sh.c, sh.h, sh.w}, f32, "data");
  Tensor weight = te::placeholder({sh.c, KG, sh.r, sh.s}, f32, "weight");
  Tensor bias = bias_ ? te::placeholder({sh.k}, f32, "bias") : Tensor();

  // The input the phases read, at indices counted from (ay.lo, ax.lo): zero outside the data.
  Tensor padded;
  std::function<Expr(Expr, Expr, Expr, Expr)> source = [&](Expr n, Expr c, Expr y, Expr x) {
    return data(n, c, y + Expr(ay.lo), x + Expr(ax.lo));
  };
  if (ay.needs_padding() || ax.needs_padding()) {
    padded = te::compute({sh.n, sh.c, ay.span, ax.span},
                         [&](const te::Indices& i) {
                           Expr y = i[2] + Expr(ay.lo), x = i[3] + Expr(ax.lo);
                           Expr inside = ir::logical_and(ir::logical_and(y >= Expr(int64_t{0}), y < Expr(sh.h)),
                                                         ir::logical_and(x >= Expr(int64_t{0}), x < Expr(sh.w)));
                           Expr cy = ir::min(ir::max(y, Expr(int64_t{0})), Expr(sh.h - 1));
                           Expr cx = ir::min(ir::max(x, Expr(int64_t{0})), Expr(sh.w - 1));
                           return ir::make_select(inside, data(i[0], i[1], cy, cx), Expr(0.0f));
                         },
                         "data.padded", {"n", "c", "y", "x"});
    source = [&](Expr n, Expr c, Expr y, Expr x) { return padded(n, c, y, x); };
  }

  // ONNX's weight walks the input channels outermost: a tile reading its kb channels of one
  // input channel strides k * r * s floats per step, every step on a new page. Packed as
  // [k / kb][c / group][r][s][kb] the tile's weights are one contiguous stream.
  Tensor packed;
  std::function<Expr(Expr, Expr, Expr, Expr)> weight_at = [&](Expr oc, Expr ic, Expr ky, Expr kx) {
    Expr c = sh.group > 1 ? ir::floordiv(oc, Expr(KG)) * Expr(CG) + ic : ic;
    return weight(c, sh.group > 1 ? ir::floormod(oc, Expr(KG)) : oc, ky, kx);
  };
  if (pack) {
    packed = te::compute({(sh.k + kb - 1) / kb, CG, sh.r, sh.s, kb},
                         [&](const te::Indices& i) {
                           Expr oc = i[0] * Expr(kb) + i[4];
                           Expr v = weight_at(ir::min(oc, Expr(sh.k - 1)), i[1], i[2], i[3]);
                           return sh.k % kb == 0 ? v : ir::make_select(oc < Expr(sh.k), v, Expr(0.0f));
                         },
                         "weight.packed", {"ko", "c", "r", "s", "ki"});
    weight_at = [&](Expr oc, Expr ic, Expr ky, Expr kx) {
      return packed(ir::floordiv(oc, Expr(kb)), ic, ky, kx, ir::floormod(oc, Expr(kb)));
    };
  }

  IterVar rc = te::reduce_axis(CG, "rc"), ry = te::reduce_axis(ay.taps, "ry"), rx = te::reduce_axis(ax.taps, "rx");
  Tensor phases = te::compute(
      {sh.n, sh.k, U, SH, SW, UX},
      [&](const te::Indices& i) {
        Expr jy = ir::to_expr(ry->var), jx = ir::to_expr(rx->var), ic = ir::to_expr(rc->var);
        Expr c = sh.group > 1 ? ir::floordiv(i[1], Expr(KG)) * Expr(CG) + ic : ic;
        Expr ky = ay.tap(i[3], jy), kx = ax.tap(i[4], jx);
        Expr w;
        if (ay.exact() && ax.exact()) {
          w = weight_at(i[1], ic, ky, kx);
        } else {
          Expr valid = ir::logical_and(ay.valid(i[3], jy), ax.valid(i[4], jx));
          w = ir::make_select(valid, weight_at(i[1], ic, ir::min(ky, Expr(sh.r - 1)), ir::min(kx, Expr(sh.s - 1))),
                              Expr(0.0f));
        }
        Expr x = source(i[0], c, ay.input(i[2], i[3], jy), ax.input(i[5], i[4], jx));
        return te::sum(x * w, {rc, ry, rx});
      },
      "phases", {"n", "k", "u", "v", "vx", "ux"});
  Tensor out = te::compute({sh.n, sh.k, OH, OW},
                           [&](const te::Indices& i) {
                             Expr v = phases(i[0], i[1], ir::floordiv(i[2], Expr(SH)), ir::floormod(i[2], Expr(SH)),
                                             ir::floormod(i[3], Expr(SW)), ir::floordiv(i[3], Expr(SW)));
                             return bias_ ? v + bias(i[1]) : v;
                           },
                           "out", {"n", "k", "y", "x"});

  Scheduled result = make_scheduled({data, weight, bias}, out);
  schedule::Schedule& sch = *result.schedule;
  auto vectorize_inner = [&](schedule::Stage& st, const IterVar& axis, int64_t extent) {
    if (lanes <= 1 || extent <= 1) return;
    if (extent <= lanes) {
      st.vectorize(axis);
      return;
    }
    int64_t v = lanes;
    while (v > 1 && extent % v != 0) v /= 2;
    auto [o, in] = st.split(axis, v);
    st.unroll(o);
    if (v > 1) st.vectorize(in);
  };

  schedule::Stage& o = sch[out];
  auto [k_o, k_i] = o.split(o.axis(1), kb);
  auto [y_o, y_i] = o.split(o.axis(2), YT);
  auto [x_o, x_i] = o.split(o.axis(3), XT);
  IterVar n = o.axis(0);
  auto [x_q, x_p] = o.split(x_i, SW);
  o.unroll(k_i);
  o.unroll(y_i);
  if (SW > 1 && interleave == "shuffle") {
    // Columns in output order, every one a scalar copy from the tile's registers: LLVM's SLP
    // vectorizer makes the copies of a row one interleaving shuffle and contiguous stores.
    o.reorder({n, k_o, y_o, x_o, k_i, y_i, x_q, x_p});
    o.unroll(x_q);
    o.unroll(x_p);
  } else {
    o.reorder({n, k_o, y_o, x_o, k_i, y_i, x_p, x_q});
    if (SW > 1) o.unroll(x_p);
    vectorize_inner(o, x_q, xw);
  }
  sch[phases].compute_at(o, x_o);
  if (parallel == "nky") o.parallel(o.fuse(o.fuse(n, k_o), y_o));
  if (parallel == "nk") o.parallel(o.fuse(n, k_o));

  schedule::Stage& p = sch[phases];
  IterVar pn = p.axis(0), pk = p.axis(1), pu = p.axis(2), pv = p.axis(3), pvx = p.axis(4), pux = p.axis(5);
  IterVar tc = p.reduce_axis(0), ty = p.reduce_axis(1), tx = p.reduce_axis(2);
  if (taps_outer)
    p.reorder({pn, ty, tx, tc, pk, pu, pv, pvx, pux});
  else
    p.reorder({pn, tc, ty, tx, pk, pu, pv, pvx, pux});
  if (unroll_taps) p.unroll(tx);
  p.unroll(pk);
  p.unroll(pu);
  p.unroll(pv);
  p.unroll(pvx);
  vectorize_inner(p, pux, xw);

  if (packed.op()) {
    schedule::Stage& wp = sch[packed];
    if (parallel != "none") wp.parallel(wp.axis(0));
  }
  if (padded.op()) {
    schedule::Stage& pc = sch[padded];
    if (parallel != "none") pc.parallel(pc.fuse(pc.axis(0), pc.axis(1)));
    if (lanes > 1) {
      auto [c_o, c_i] = pc.split(pc.axis(3), lanes);
      pc.vectorize(c_i);
    }
  }
  return result;
}

}  // namespace

void register_conv2d_transpose_operators(Registry& r) {
  r.add(std::make_unique<Conv2dTranspose>("conv2d_transpose", false));
  r.add(std::make_unique<Conv2dTranspose>("conv2d_transpose_bias", true));
}

}  // namespace tf::ops

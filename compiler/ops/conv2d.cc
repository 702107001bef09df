// conv2d on plain layouts: NCHW input, OIHW weight (k, c/groups, r, s), NCHW output, with any
// stride, dilation, asymmetric padding and groups (depthwise and grouped are the same op), and the
// fused epilogues of CNN layers: bias, bias + ReLU, bias + residual + ReLU, bias + clip(0, 6).
//
// The schedule keeps a register tile of kb output channels x yt output rows x xw output columns:
// NCHW's contiguous dimension is the width, so the columns are vectorized and every kernel tap is
// one broadcast weight times one vector of input per row. Tiles walk (n, k-block, oh-block,
// ow-block); the
// reduction over (c, r, s) runs inside the tile in either order, with the kernel width optionally
// unrolled. Padding is either a guarded select in the input read or a padded copy made first.
#include <algorithm>
#include <cmath>

#include "compiler/ops/conv2d_shape.h"
#include "compiler/ops/nchwc_epilogue.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/vector_columns.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

using Epilogue = NchwcEpilogue;  // the same fused epilogues on the plain layout

class Conv2d : public Operator {
 public:
  Conv2d(std::string name, Epilogue e) : name_(std::move(name)), epilogue_(e) {}

  std::string name() const override { return name_; }
  std::string description() const override {
    return "out[N,K,OH,OW] = " + describe_epilogue(epilogue_, "conv2d(data[N,C,H,W], weight[K,C/groups,R,S])",
                                                   "bias[K]", "residual[N,K,OH,OW]");
  }
  std::vector<std::string> shape_names() const override { return Conv2dShape::names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Conv2dShape::from_named(named).to_vector();
  }
  void check_shape(const std::vector<int64_t>& shape) const override { Conv2dShape::from_vector(shape).check(name_); }
  std::string shape_text(const std::vector<int64_t>& shape) const override {
    return Conv2dShape::from_vector(shape).named();
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return Conv2dShape::from_vector(s).flops(); }

  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const Conv2dShape sh = Conv2dShape::from_vector(s);
    std::vector<std::vector<int64_t>> in = {{sh.n, sh.c, sh.h, sh.w}, {sh.k, sh.c_per_group(), sh.r, sh.s}};
    if (has_bias(epilogue_)) in.push_back({sh.k});
    if (has_residual(epilogue_)) in.push_back(output_shape(s));
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    const Conv2dShape sh = Conv2dShape::from_vector(s);
    return {sh.n, sh.k, sh.oh(), sh.ow()};
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    Conv2dEpilogue ep;
    if (has_bias(epilogue_)) ep.bias = in[2];
    if (has_residual(epilogue_)) ep.residual = in[3];
    ep.relu = has_relu(epilogue_);
    ep.clip6 = has_clip(epilogue_);
    conv2d_reference(Conv2dShape::from_vector(s), in[0], in[1], ep, out, tol);
  }

 private:
  // The fused epilogue applied to the convolution's value at output (n, k, y, x).
  Expr epilogue(Expr v, const Tensor& bias, const Tensor& residual, const te::Indices& i) const {
    if (!has_bias(epilogue_)) return v;
    v = v + bias(i[1]);
    if (has_residual(epilogue_)) v = v + residual(i[0], i[1], i[2], i[3]);
    if (has_relu(epilogue_)) v = ir::max(v, Expr(0.0f));
    if (has_clip(epilogue_)) v = ir::min(ir::max(v, Expr(0.0f)), Expr(6.0f));
    return v;
  }

  std::string name_;
  Epilogue epilogue_;
};

space::ConfigSpace Conv2d::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const Conv2dShape sh = Conv2dShape::from_vector(s);
  const int64_t lanes = std::max(1, t.float32_lanes());
  space::ConfigSpace cs;
  auto kb = space::capped_choices({1, 2, 4, 6, 8, 12, 16}, sh.k);
  // A whole output row as one tile serves the narrow late layers (7, 14 columns) without overhang.
  std::vector<int64_t> widths = {4, 8, lanes, 2 * lanes, 3 * lanes, 4 * lanes};
  if (sh.ow() <= 4 * lanes) widths.push_back(sh.ow());
  std::sort(widths.begin(), widths.end());
  auto xw = space::capped_choices(widths, sh.ow());
  xw.erase(std::unique(xw.begin(), xw.end()), xw.end());
  const size_t default_xw = space::index_of_choice(xw, std::min(sh.ow(), 2 * lanes));
  const int64_t vectors = (xw[default_xw].get<int64_t>() + lanes - 1) / lanes;
  // About 16 accumulator vectors by default. A depthwise tile's channels share no input, so it
  // takes more rows instead.
  const bool depthwise = sh.c_per_group() == 1;
  cs.add_knob("kb", kb, space::index_of_choice(kb, depthwise ? 4 : 16 / vectors), "output channels per register tile");
  cs.add_knob("xw", xw, default_xw, "output columns per register tile, vectorized (NCHW's contiguous dimension)");
  auto yt = space::capped_choices({1, 2, 4}, sh.oh());
  cs.add_knob("yt", yt, space::index_of_choice(yt, depthwise ? 2 : 1), "output rows per register tile");
  cs.add_knob("order", {Json("crs"), Json("rsc")}, 0,
              "reduction loop order in a tile: channels outermost (crs) or kernel taps outermost (rsc)");
  cs.add_knob("unroll_s", {Json(true), Json(false)}, sh.s <= 7 ? 0 : 1, "unroll the kernel-width loop");
  if (sh.padded()) {
    // A depthwise tile does 9 FMAs per input vector where a dense one does kb x 9: the guarded
    // select costs it too much, so it starts from the padded copy.
    cs.add_knob("pad", {Json("inline"), Json("copy")}, depthwise ? 1 : 0,
                "padding as a guarded select in the input read (inline) or a zero-padded copy made first (copy)");
  }
  cs.add_knob("parallel", {Json("nky"), Json("nk"), Json("none")}, 0,
              "loops the thread pool shares out: batch x channel blocks x output rows, batch x channel blocks, none");
  return cs;
}

Scheduled Conv2d::schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const {
  const Conv2dShape sh = Conv2dShape::from_vector(s);
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t kb = cfg.get_int("kb"), xw = cfg.get_int("xw"), yt = cfg.get_int("yt");
  const bool taps_outer = cfg.get_string("order") == "rsc", unroll_s = cfg.get_bool("unroll_s");
  const bool pad_copy = sh.padded() && cfg.get_string("pad") == "copy";
  const std::string parallel = cfg.get_string("parallel");
  const int64_t OH = sh.oh(), OW = sh.ow(), CG = sh.c_per_group(), KG = sh.k_per_group();
  const auto dt = ir::DataType::float32();

  Tensor data = te::placeholder({sh.n, sh.c, sh.h, sh.w}, dt, "data");
  Tensor weight = te::placeholder({sh.k, CG, sh.r, sh.s}, dt, "weight");
  Tensor bias, residual;
  if (has_bias(epilogue_)) bias = te::placeholder({sh.k}, dt, "bias");
  if (has_residual(epilogue_)) residual = te::placeholder({sh.n, sh.k, OH, OW}, dt, "residual");

  // The input at padded coordinates (iy, ix): zero outside the data. Only the sides that have
  // padding need a test; the clamped indices keep the load in bounds whichever way it goes.
  auto padded_read = [&](Expr n, Expr c, Expr iy, Expr ix) -> Expr {
    Expr y = iy - Expr(sh.pad_top), x = ix - Expr(sh.pad_left);
    Expr inside;
    auto require = [&](Expr cond) { inside = inside.get() ? ir::logical_and(inside, cond) : cond; };
    if (sh.pad_top) require(y >= Expr(int64_t{0}));
    if (sh.pad_bottom) require(y < Expr(sh.h));
    if (sh.pad_left) require(x >= Expr(int64_t{0}));
    if (sh.pad_right) require(x < Expr(sh.w));
    if (!inside.get()) return data(n, c, y, x);
    Expr cy = ir::min(ir::max(y, Expr(int64_t{0})), Expr(sh.h - 1));
    Expr cx = ir::min(ir::max(x, Expr(int64_t{0})), Expr(sh.w - 1));
    return ir::make_select(inside, data(n, c, cy, cx), Expr(0.0f));
  };
  Tensor padded;
  std::function<Expr(Expr, Expr, Expr, Expr)> input_at = padded_read;
  if (pad_copy) {
    padded = te::compute({sh.n, sh.c, sh.h + sh.pad_top + sh.pad_bottom, sh.w + sh.pad_left + sh.pad_right},
                         [&](const te::Indices& i) { return padded_read(i[0], i[1], i[2], i[3]); }, "data.padded",
                         {"n", "c", "y", "x"});
    input_at = [&](Expr n, Expr c, Expr iy, Expr ix) { return padded(n, c, iy, ix); };
  }

  IterVar rc = te::reduce_axis(CG, "rc"), ry = te::reduce_axis(sh.r, "ry"), rx = te::reduce_axis(sh.s, "rx");
  Tensor conv =
      te::compute({sh.n, sh.k, OH, OW},
                  [&](const te::Indices& i) {
                    Expr c = ir::to_expr(rc->var);
                    if (sh.groups > 1) c = ir::floordiv(i[1], Expr(KG)) * Expr(CG) + c;
                    Expr iy = i[2] * Expr(sh.stride) + ir::to_expr(ry->var) * Expr(sh.dilation);
                    Expr ix = i[3] * Expr(sh.stride) + ir::to_expr(rx->var) * Expr(sh.dilation);
                    return te::sum(input_at(i[0], c, iy, ix) *
                                       weight(i[1], ir::to_expr(rc->var), ir::to_expr(ry->var), ir::to_expr(rx->var)),
                                   {rc, ry, rx});
                  },
                  "conv", {"n", "k", "y", "x"});
  Tensor out = conv;
  if (has_bias(epilogue_)) {
    out = te::compute({sh.n, sh.k, OH, OW},
                      [&](const te::Indices& i) { return epilogue(conv(i[0], i[1], i[2], i[3]), bias, residual, i); },
                      "out", {"n", "k", "y", "x"});
  }

  Scheduled result;
  result.inputs = {data, weight};
  if (bias.op()) result.inputs.push_back(bias);
  if (residual.op()) result.inputs.push_back(residual);
  result.outputs = {out};
  result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
  schedule::Schedule& sch = *result.schedule;
  // The tile accumulates in registers inside the loops of the stage that walks the tiles: the
  // epilogue's, or without one the copy-out of a cache_write.
  Tensor tile = has_bias(epilogue_) ? conv : sch.cache_write(conv);

  const int64_t vw = vector_width(xw, lanes);
  auto vector_columns = [vw](schedule::Stage& st, const IterVar& col) { vectorize_columns(st, col, vw); };

  schedule::Stage& w = sch[out];
  auto [k_o, k_i] = w.split(w.axis(1), kb);
  auto [y_o, y_i] = w.split(w.axis(2), yt);
  auto [x_o, x_i] = w.split(w.axis(3), xw);
  IterVar n = w.axis(0);
  w.reorder({n, k_o, y_o, x_o, k_i, y_i, x_i});
  sch[tile].compute_at(w, x_o);
  w.unroll(k_i);
  w.unroll(y_i);
  vector_columns(w, x_i);
  if (parallel == "nky") w.parallel(w.fuse(w.fuse(n, k_o), y_o));
  if (parallel == "nk") w.parallel(w.fuse(n, k_o));

  schedule::Stage& r = sch[tile];
  IterVar tn = r.axis(0), tk = r.axis(1), ty = r.axis(2), tx = r.axis(3);
  IterVar tc = r.reduce_axis(0), tr = r.reduce_axis(1), ts = r.reduce_axis(2);
  if (taps_outer)
    r.reorder({tn, tr, ts, tc, tk, ty, tx});
  else
    r.reorder({tn, tc, tr, ts, tk, ty, tx});
  if (unroll_s) r.unroll(ts);
  r.unroll(tk);
  r.unroll(ty);
  vector_columns(r, tx);

  if (pad_copy) {
    schedule::Stage& p = sch[padded];
    if (parallel != "none") p.parallel(p.fuse(p.axis(0), p.axis(1)));
    vector_columns(p, p.axis(3));
  }
  return result;
}

}  // namespace

void register_conv2d_operators(Registry& r) {
  r.add(std::make_unique<Conv2d>("conv2d", Epilogue::None));
  r.add(std::make_unique<Conv2d>("conv2d_bias", Epilogue::Bias));
  r.add(std::make_unique<Conv2d>("conv2d_bias_relu", Epilogue::BiasRelu));
  r.add(std::make_unique<Conv2d>("conv2d_bias_add", Epilogue::BiasAdd));
  r.add(std::make_unique<Conv2d>("conv2d_bias_add_relu", Epilogue::BiasAddRelu));
  r.add(std::make_unique<Conv2d>("conv2d_bias_clip", Epilogue::BiasClip));
}

}  // namespace tf::ops

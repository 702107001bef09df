// conv3d on plain layouts: NCDHW input, weight [k, c/groups, kd, kh, kw], NCDHW output, with a
// stride, dilation and pads per axis, groups, and the epilogues of video and medical networks:
// bias, bias + ReLU.
//
// As conv2d's plain template: a register tile of kb output channels x xw output columns (the
// contiguous width axis, vectorized), each kernel tap one broadcast weight times one input vector.
// Tiles walk (n, k-block, depth, row, column block); the reduction over (c, kd, kh, kw) runs inside
// the tile. Padding is a zero-padded copy made first, which keeps bounds tests out of the tile.
#include <algorithm>
#include <functional>

#include "compiler/ops/conv3d_shape.h"
#include "compiler/ops/conv3d_tile.h"
#include "compiler/ops/pad3d.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/vector_columns.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

class Conv3d : public Operator {
 public:
  Conv3d(std::string name, bool bias, bool relu) : name_(std::move(name)), bias_(bias), relu_(relu) {}

  std::string name() const override { return name_; }
  std::string description() const override {
    std::string v = "conv3d(data[N,C,D,H,W], weight[K,C/groups,KD,KH,KW])";
    if (bias_) v += " + bias[K]";
    if (relu_) v = "relu(" + v + ")";
    return "out[N,K,OD,OH,OW] = " + v;
  }
  std::vector<std::string> shape_names() const override { return Conv3dShape::names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Conv3dShape::from_named(named).to_vector();
  }
  void check_shape(const std::vector<int64_t>& s) const override { shape(s).check(name_); }
  std::string shape_text(const std::vector<int64_t>& s) const override { return shape(s).named(); }
  int64_t flops(const std::vector<int64_t>& s) const override { return shape(s).flops(); }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const Conv3dShape sh = shape(s);
    std::vector<std::vector<int64_t>> in = {sh.input_shape(), sh.weight_shape()};
    if (bias_) in.push_back({sh.k});
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return shape(s).output_shape(); }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    conv3d_reference(shape(s), in[0], in[1], bias_ ? in[2] : nullptr, relu_, out, tol);
  }

 private:
  static Conv3dShape shape(const std::vector<int64_t>& s) { return Conv3dShape::from_vector(s); }
  std::string name_;
  bool bias_, relu_;
};

space::ConfigSpace Conv3d::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const Conv3dShape sh = shape(s);
  return conv3d_tile_space(sh.k, sh.ax[2].out(), t);
}

Scheduled Conv3d::schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const {
  const Conv3dShape sh = shape(s);
  const auto& ax = sh.ax;
  const auto f32 = ir::DataType::float32();
  Conv3dTile tile;
  tile.out_shape = sh.output_shape();
  tile.groups = sh.groups, tile.c_per_group = sh.c_per_group(), tile.k_per_group = sh.k_per_group();
  for (int a = 0; a < 3; ++a)
    tile.kernel[a] = ax[a].kernel, tile.stride[a] = ax[a].stride, tile.dilation[a] = ax[a].dilation;
  tile.data = te::placeholder(sh.input_shape(), f32, "data");
  tile.weight = te::placeholder(sh.weight_shape(), f32, "weight");
  if (bias_) tile.bias = te::placeholder({sh.k}, f32, "bias");
  tile.relu = relu_;
  const Tensor data = tile.data, weight = tile.weight;
  if (sh.padded()) {
    tile.source = pad_ncdhw(data, sh.n, sh.c, ax, Expr(0.0f), "data.padded", {"n", "c", "z", "y", "x"});
  }
  tile.weight_at = [weight](Expr k, Expr c, Expr kz, Expr ky, Expr kx) { return weight(k, c, kz, ky, kx); };
  return schedule_conv3d_tile(tile, cfg, t);
}

}  // namespace

space::ConfigSpace conv3d_tile_space(int64_t k, int64_t ow, const codegen::Target& t) {
  const int64_t lanes = std::max(1, t.float32_lanes());
  space::ConfigSpace cs;
  std::vector<int64_t> widths = {4, 8, lanes, 2 * lanes, 4 * lanes};
  if (ow <= 4 * lanes) widths.push_back(ow);
  std::sort(widths.begin(), widths.end());
  auto xw = space::capped_choices(widths, ow);
  xw.erase(std::unique(xw.begin(), xw.end()), xw.end());
  const size_t default_xw = space::index_of_choice(xw, std::min(ow, 2 * lanes));
  const int64_t vectors = (xw[default_xw].get<int64_t>() + lanes - 1) / lanes;
  auto kb = space::capped_choices({1, 2, 4, 8, 16}, k);
  // About 16 accumulator vectors by default, as conv2d.
  cs.add_knob("kb", kb, space::index_of_choice(kb, std::max<int64_t>(1, 16 / vectors)),
              "output channels per register tile");
  cs.add_knob("xw", xw, default_xw, "output columns per register tile, vectorized (NCDHW's contiguous dimension)");
  cs.add_knob("parallel", {Json("nkd"), Json("nk"), Json("none")}, 0,
              "loops the thread pool shares out: batch x channel blocks x output depth, batch x channel blocks, none");
  return cs;
}

Scheduled schedule_conv3d_tile(const Conv3dTile& t, const space::Config& cfg, const codegen::Target& target) {
  const int64_t lanes = std::max(1, target.float32_lanes());
  const int64_t kb = cfg.get_int("kb"), xw = cfg.get_int("xw");
  const std::string parallel = cfg.get_string("parallel");
  const Tensor source = t.source.op() ? t.source : t.data;

  IterVar rc = te::reduce_axis(t.c_per_group, "rc");
  IterVar rk[3] = {te::reduce_axis(t.kernel[0], "rz"), te::reduce_axis(t.kernel[1], "ry"),
                   te::reduce_axis(t.kernel[2], "rx")};
  Tensor conv =
      te::compute(t.out_shape,
                  [&](const te::Indices& i) {
                    Expr c = ir::to_expr(rc->var);
                    if (t.groups > 1) c = ir::floordiv(i[1], Expr(t.k_per_group)) * Expr(t.c_per_group) + c;
                    std::vector<Expr> at = {i[0], c};
                    for (int a = 0; a < 3; ++a)
                      at.push_back(i[2 + a] * Expr(t.stride[a]) + ir::to_expr(rk[a]->var) * Expr(t.dilation[a]));
                    Expr w = t.weight_at(i[1], ir::to_expr(rc->var), ir::to_expr(rk[0]->var), ir::to_expr(rk[1]->var),
                                         ir::to_expr(rk[2]->var));
                    return te::sum(source(at) * w, {rc, rk[0], rk[1], rk[2]});
                  },
                  "conv", {"n", "k", "z", "y", "x"});
  Tensor out = conv;
  if (t.bias.op()) {
    out = te::compute(t.out_shape,
                      [&](const te::Indices& i) {
                        Expr v = conv(i) + t.bias(i[1]);
                        return t.relu ? ir::max(v, Expr(0.0f)) : v;
                      },
                      "out", {"n", "k", "z", "y", "x"});
  }

  Scheduled result = make_scheduled({t.data, t.weight, t.bias}, out);
  schedule::Schedule& sch = *result.schedule;
  // The tile accumulates in registers inside the loops of the stage that walks the tiles: the
  // epilogue's, or without one the copy-out of a cache_write.
  Tensor acc = t.bias.op() ? conv : sch.cache_write(conv);

  const int64_t vw = vector_width(xw, lanes);
  auto vector_columns = [vw](schedule::Stage& st, const IterVar& col) { vectorize_columns(st, col, vw); };

  schedule::Stage& o = sch[out];
  auto [k_o, k_i] = o.split(o.axis(1), kb);
  auto [x_o, x_i] = o.split(o.axis(4), xw);
  IterVar n = o.axis(0), z = o.axis(2), y = o.axis(3);
  o.reorder({n, k_o, z, y, x_o, k_i, x_i});
  sch[acc].compute_at(o, x_o);
  o.unroll(k_i);
  vector_columns(o, x_i);
  if (parallel == "nkd") o.parallel(o.fuse(o.fuse(n, k_o), z));
  if (parallel == "nk") o.parallel(o.fuse(n, k_o));

  schedule::Stage& r = sch[acc];
  IterVar tn = r.axis(0), tk = r.axis(1), tz = r.axis(2), ty = r.axis(3), tx = r.axis(4);
  r.reorder({tn, tz, ty, r.reduce_axis(0), r.reduce_axis(1), r.reduce_axis(2), r.reduce_axis(3), tk, tx});
  r.unroll(tk);
  vector_columns(r, tx);

  if (t.source.op()) {
    schedule::Stage& p = sch[t.source];
    if (parallel != "none") p.parallel(p.fuse(p.axis(0), p.axis(1)));
    if (lanes > 1) {
      auto [c_o, c_i] = p.split(p.axis(4), lanes);
      p.vectorize(c_i);
    }
  }
  return result;
}

void register_conv3d_operators(Registry& r) {
  r.add(std::make_unique<Conv3d>("conv3d", false, false));
  r.add(std::make_unique<Conv3d>("conv3d_bias", true, false));
  r.add(std::make_unique<Conv3d>("conv3d_bias_relu", true, true));
}

}  // namespace tf::ops

// conv2d by Winograd F(m x m, 3 x 3) on the blocked layouts (winograd.h): data (n, C/ib, h, w,
// ib), the weight transformed at build time U (alpha, alpha, K/ob, C/ib, ib, ob), output (n, K/ob,
// oh, ow, ob), with conv2d_nchwc's epilogues. Three stages per block of output tiles:
//
//   V[a, b, cb, n, ty, tx, ci] = (B^T d B)[a][b]      the tiles' input patches, transformed
//   M[a, b, kb, n, ty, tx, l]  = sum_c V[a, b, c] U[a, b, kb, c, l]   alpha^2 GEMMs over channels
//   out[n, kb, y, x, l]        = epilogue((A^T M A)[y % m][x % m])
//
// The GEMM is the hot part and is blocked like conv2d_nchwc's micro-kernel: per input channel it
// loads oc_blocks vectors of U and broadcasts one V value per tile of the block into
// tile_h x tile_w x oc_blocks vector accumulators. The transforms are explicit sums of their
// nonzero terms: each is written as a select over the unrolled tile position, which the
// simplifier resolves per unrolled copy, and the separable half-sums (B^T d, M A) that several
// outputs share come out identical, so LLVM computes them once.
#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/error.h"
#include "compiler/ops/nchwc_epilogue.h"
#include "compiler/ops/nchwc_operator.h"
#include "compiler/ops/nchwc_ops.h"
#include "compiler/ops/nchwc_schedule.h"
#include "compiler/ops/winograd.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

// sum_j row[j] * term(j) over the nonzero entries: +-1 as an add or subtract, never a multiply
// by 0 or 1. A positive term goes first so no negation is needed up front.
Expr combine(const std::vector<double>& row, const std::function<Expr(int64_t)>& term) {
  std::vector<int64_t> order;
  for (size_t j = 0; j < row.size(); ++j) {
    if (row[j] > 0)
      order.insert(order.begin(), static_cast<int64_t>(j));
    else if (row[j] < 0)
      order.push_back(static_cast<int64_t>(j));
  }
  Expr acc;
  for (int64_t j : order) {
    const double c = row[static_cast<size_t>(j)];
    Expr t = term(j);
    if (std::fabs(c) != 1.0) t = t * ir::make_float(std::fabs(c));
    if (!acc.get())
      acc = c > 0 ? t : ir::make_float(0.0) - t;
    else
      acc = c > 0 ? acc + t : acc - t;
  }
  return acc.get() ? acc : ir::make_float(0.0);
}

// branch(index) for an index in [0, count): a chain of selects that folds to one branch once the
// index is a constant (an unrolled loop).
Expr pick(const Expr& index, int64_t count, const std::function<Expr(int64_t)>& branch) {
  Expr e = branch(count - 1);
  for (int64_t i = count - 1; i-- > 0;) e = ir::make_select(index == Expr(i), branch(i), e);
  return e;
}

// The transform T^T X T of the alpha x alpha X = x(p, q), at the (row, col) position picked by
// two indices: the inner sum over q for each p is built the same way for every row, so the
// unrolled rows share it.
Expr sandwich(const std::vector<std::vector<double>>& tt, const Expr& row, const Expr& col,
              const std::function<Expr(int64_t, int64_t)>& x) {
  const int64_t n = static_cast<int64_t>(tt.size());
  return pick(row, n, [&](int64_t a) {
    return combine(tt[static_cast<size_t>(a)], [&](int64_t p) {
      return pick(col, n,
                  [&](int64_t b) { return combine(tt[static_cast<size_t>(b)], [&](int64_t q) { return x(p, q); }); });
    });
  });
}

std::vector<Json> divisors_up_to(int64_t extent, int64_t cap) {
  std::vector<Json> out;
  for (int64_t d = 1; d <= std::min(extent, cap); ++d) {
    if (extent % d == 0) out.emplace_back(d);
  }
  return out;
}

struct GemmTile {
  int64_t tile_h = 1, tile_w = 1, oc_blocks = 1;
};

// The fewest channel blocks that give each broadcast V value two vector FMAs (two blocks of one
// vector under AVX-512, one block of two under AVX2), the widest row of tiles that fits the
// accumulators and divides the tile row, then as many tile rows, then four channel blocks if they
// still fit. Each further tile shares the loaded U vectors, each further block only the broadcast:
// ResNet-18's layers tuned on AVX2 (bench db, 1 and 2 threads) ran fastest with 4-8 tiles of one
// block; 1x1 tiles of 4 blocks, the old default there, ran at 0.5-0.6x of them.
GemmTile default_gemm_tile(int64_t th, int64_t tw, int64_t k_blocks, int64_t vectors_per_block, int64_t budget) {
  GemmTile t;
  t.oc_blocks = vectors_per_block >= 2 || k_blocks < 2 ? 1 : 2;
  auto fits = [&](int64_t h, int64_t w, int64_t k) { return h * w * k * vectors_per_block <= budget; };
  for (const Json& w : divisors_up_to(tw, 16)) {
    if (fits(1, w.get<int64_t>(), t.oc_blocks)) t.tile_w = w.get<int64_t>();
  }
  for (const Json& h : divisors_up_to(th, 4)) {
    if (fits(h.get<int64_t>(), t.tile_w, t.oc_blocks)) t.tile_h = h.get<int64_t>();
  }
  if (k_blocks >= 4 && fits(t.tile_h, t.tile_w, 4)) t.oc_blocks = 4;
  return t;
}

// Accumulators the default GEMM tile may take: all but four registers, or all sixteen of an AVX2
// target, whose FMAs read U from memory (the tuned AVX2 tiles above hold 14-16 accumulators).
int64_t gemm_accumulator_budget(int64_t vector_registers) {
  return std::max<int64_t>(accumulator_budget(vector_registers), std::min<int64_t>(vector_registers, 16));
}

class Conv2dWinograd : public NchwcConvOperator<Conv2dWinogradShape> {
 public:
  using NchwcConvOperator::NchwcConvOperator;

  std::string description() const override {
    return "out[N,K/ob,OH,OW,ob] = " +
           describe_epilogue(epilogue_, "winograd_F(m,3)(data[N,C/ib,H,W,ib], U[m+2,m+2,K/ob,C/ib,ib,ob])",
                             "bias[K/ob,ob]", "residual[N,K/ob,OH,OW,ob]");
  }

  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const auto sh = Conv2dWinogradShape::from_vector(s);
    return inputs_with_epilogue(sh, winograd_weight_shape(sh, sh.m));
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    conv2d_winograd_reference(Conv2dWinogradShape::from_vector(s), in[0], in[1], has_bias(epilogue_) ? in[2] : nullptr,
                              has_residual(epilogue_) ? in[3] : nullptr, has_relu(epilogue_), has_clip(epilogue_), out,
                              tol);
  }
};

space::ConfigSpace Conv2dWinograd::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const auto sh = Conv2dWinogradShape::from_vector(s);
  const int64_t lanes = std::max(1, t.float32_lanes());
  const GemmTile def = default_gemm_tile(sh.tiles_h(), sh.tiles_w(), sh.k_blocks(), ceil_div(sh.ob, lanes),
                                         gemm_accumulator_budget(t.vector_registers));
  space::ConfigSpace cs;
  auto tw = divisors_up_to(sh.tiles_w(), 16);
  cs.add_knob("tile_w", tw, space::index_of_choice(tw, def.tile_w),
              "output tiles along a row per GEMM block: each shares the weight vectors of one input channel");
  auto th = divisors_up_to(sh.tiles_h(), 4);
  cs.add_knob("tile_h", th, space::index_of_choice(th, def.tile_h), "rows of output tiles per GEMM block");
  auto kb = int_choices({1, 2, 4}, sh.k_blocks());
  cs.add_knob("oc_blocks", kb, space::index_of_choice(kb, def.oc_blocks),
              "output-channel blocks (of ob) per GEMM block: each shares one broadcast V value");
  cs.add_knob(
      "unroll_ic", divisor_choices({1, 2, 4}, std::min(sh.ib, sh.conv.c)), 0,
      "input channels of a block unrolled together in the GEMM (more independent loads in flight, longer code)");
  // Tiles outermost reads all of U again per tile block, channel blocks outermost all of V again
  // per channel block: the default re-reads the smaller, (m+2)^2 k c floats against (m+2)^2 c x
  // tiles (late layers have few tiles and many channels).
  const int64_t tiles = sh.conv.n * sh.tiles_h() * sh.tiles_w();
  cs.add_knob(
      "order", {Json("tiles_k"), Json("k_tiles")}, sh.conv.k > tiles ? 1 : 0,
      "tile blocks outermost with each block's input transform computed once inside (tiles_k), or output-channel "
      "blocks outermost over an input transform of the whole image made first (k_tiles: U's slice stays in cache)");
  cs.add_knob("parallel", {Json("outer"), Json("none")}, 0,
              "the parallel loop: batch x tile-block rows (tiles_k) or batch x channel blocks (k_tiles), or none");
  limit_register_tile(cs, {"tile_w", "tile_h", "oc_blocks"}, ceil_div(sh.ob, lanes), t.vector_registers);
  return cs;
}

Scheduled Conv2dWinograd::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                   const codegen::Target& t) const {
  const auto sh = Conv2dWinogradShape::from_vector(s);
  const Conv2dShape& c = sh.conv;
  const WinogradMatrices& wm = winograd_matrices(sh.m);
  const int64_t m = sh.m, alpha = sh.alpha(), th = sh.tiles_h(), tw = sh.tiles_w();
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t ty_block = cfg.get_int("tile_h"), tx_block = cfg.get_int("tile_w"), kb_block = cfg.get_int("oc_blocks");
  const int64_t ic_unroll = cfg.get_int("unroll_ic");
  const bool tiles_outer = cfg.get_string("order") == "tiles_k";
  const bool parallel = cfg.get_string("parallel") != "none";
  const auto dt = ir::DataType::float32();

  Tensor data = te::placeholder(sh.data_shape(), dt, "data");
  Tensor weight = te::placeholder(winograd_weight_shape(sh, m), dt, "weight");
  Tensor bias, residual;
  if (has_bias(epilogue_)) bias = te::placeholder({sh.k_blocks(), sh.ob}, dt, "bias");
  if (has_residual(epilogue_)) residual = te::placeholder(sh.out_shape(), dt, "residual");

  // The tiles cover th*m x tw*m outputs, so they read th*m + 2 rows: zeros below and right of the
  // image past its own padding, where a ragged last tile reaches.
  Conv2dShape covered = c;
  covered.pad_bottom = th * m + 2 - c.h - c.pad_top;
  covered.pad_right = tw * m + 2 - c.w - c.pad_left;
  const NchwcInput input = nchwc_input(data, covered, covered.padded());

  Tensor v = te::compute({alpha, alpha, sh.c_blocks(), c.n, th, tw, sh.ib},
                         [&](const te::Indices& i) {
                           return sandwich(wm.bt, i[0], i[1], [&](int64_t p, int64_t q) {
                             return input.at(i[3], i[2], i[4] * Expr(m) + Expr(p), i[5] * Expr(m) + Expr(q), i[6]);
                           });
                         },
                         "winograd.V", {"a", "b", "cb", "n", "ty", "tx", "ci"});

  // One reduction over the real input channels: a ragged last block is the tail of its split.
  IterVar rc = te::reduce_axis(c.c, "rc");
  Tensor gemm = te::compute(
      {alpha, alpha, sh.k_blocks(), c.n, th, tw, sh.ob},
      [&](const te::Indices& i) {
        Expr ch = ir::to_expr(rc->var);
        Expr cb = ir::floordiv(ch, Expr(sh.ib)), ci = ir::floormod(ch, Expr(sh.ib));
        return te::sum(v(i[0], i[1], cb, i[3], i[4], i[5], ci) * weight(i[0], i[1], i[2], cb, ci, i[6]), {rc});
      },
      "winograd.M", {"a", "b", "kb", "n", "ty", "tx", "l"});

  Tensor out = te::compute(
      sh.out_shape(),
      [&](const te::Indices& i) {
        Expr ty = ir::floordiv(i[2], Expr(m)), tx = ir::floordiv(i[3], Expr(m));
        Expr y = sandwich(wm.at, ir::floormod(i[2], Expr(m)), ir::floormod(i[3], Expr(m)),
                          [&](int64_t p, int64_t q) { return gemm(Expr(p), Expr(q), i[1], i[0], ty, tx, i[4]); });
        return apply_nchwc_epilogue(epilogue_, y, bias, residual, i, c.k, sh.ob);
      },
      "out", {"n", "ko", "y", "x", "l"});

  Scheduled result = make_scheduled({data, weight, bias, residual}, out);
  schedule::Schedule& sch = *result.schedule;

  // The output: tile blocks (ty_block x tx_block tiles) x channel blocks, each tile's m x m
  // outputs unrolled from alpha^2 vectors of M.
  schedule::Stage& o = sch[out];
  auto [k_o, k_i] = o.split(o.axis(1), kb_block);
  auto [y_t, y_i] = o.split(o.axis(2), m);
  auto [x_t, x_i] = o.split(o.axis(3), m);
  auto [y_b, y_bi] = o.split(y_t, ty_block);
  auto [x_b, x_bi] = o.split(x_t, tx_block);
  IterVar n = o.axis(0), l = o.axis(4);
  if (tiles_outer)
    o.reorder({n, y_b, x_b, k_o, k_i, y_bi, x_bi, y_i, x_i, l});
  else
    o.reorder({n, k_o, y_b, x_b, k_i, y_bi, x_bi, y_i, x_i, l});
  o.unroll(y_i);
  o.unroll(x_i);
  vectorize_lanes(o, l, sh.ob, lanes);

  // The GEMM of one block: per transform position (a, b), accumulators for the block's tiles and
  // channel blocks in registers (a cache computed at b), copied out once.
  Tensor acc = sch.cache_write(gemm);
  schedule::Stage& ms = sch[gemm];
  ms.compute_at(o, tiles_outer ? k_o : x_b);
  sch[acc].compute_at(ms, ms.axis(1));
  for (size_t d = 2; d < 6; ++d) ms.unroll(ms.axis(d));
  vectorize_lanes(ms, ms.axis(6), sh.ob, lanes);

  schedule::Stage& a = sch[acc];
  auto [rc_o, rc_i] = a.split(a.reduce_axis(0), std::min(sh.ib, c.c));
  auto [rc_i_o, rc_i_u] = a.split(rc_i, ic_unroll);
  a.reorder({a.axis(0), a.axis(1), a.axis(3), rc_o, rc_i_o, rc_i_u, a.axis(4), a.axis(5), a.axis(2), a.axis(6)});
  if (ic_unroll > 1) a.unroll(rc_i_u);
  a.unroll(a.axis(4));
  a.unroll(a.axis(5));
  a.unroll(a.axis(2));
  vectorize_lanes(a, a.axis(6), sh.ob, lanes);

  // The input transform: per block inside the tile loop, or the whole image first.
  schedule::Stage& vs = sch[v];
  vs.reorder({vs.axis(2), vs.axis(3), vs.axis(4), vs.axis(5), vs.axis(0), vs.axis(1), vs.axis(6)});
  vs.unroll(vs.axis(0));
  vs.unroll(vs.axis(1));
  vectorize_lanes(vs, vs.axis(6), sh.ib, lanes);
  if (tiles_outer) {
    vs.compute_at(o, x_b);
  } else if (parallel) {
    vs.parallel(vs.fuse(vs.axis(2), vs.axis(3)));
  }
  if (parallel) o.parallel(o.fuse(n, tiles_outer ? y_b : k_o));
  if (input.padded.op()) schedule_padded_copy(sch[input.padded], parallel ? "y" : "none", sh.ib, lanes);
  return result;
}

}  // namespace

void register_conv2d_winograd_operators(Registry& r) {
  r.add(std::make_unique<Conv2dWinograd>("conv2d_winograd_nchwc", NchwcEpilogue::None));
  r.add(std::make_unique<Conv2dWinograd>("conv2d_winograd_nchwc_bias", NchwcEpilogue::Bias));
  r.add(std::make_unique<Conv2dWinograd>("conv2d_winograd_nchwc_bias_relu", NchwcEpilogue::BiasRelu));
  r.add(std::make_unique<Conv2dWinograd>("conv2d_winograd_nchwc_bias_add", NchwcEpilogue::BiasAdd));
  r.add(std::make_unique<Conv2dWinograd>("conv2d_winograd_nchwc_bias_add_relu", NchwcEpilogue::BiasAddRelu));
  r.add(std::make_unique<Conv2dWinograd>("conv2d_winograd_nchwc_bias_clip", NchwcEpilogue::BiasClip));
}

}  // namespace tf::ops

// dense / matmul: C[M,N] = sum_k A[M,K] * B[K,N], and its variants with B transposed (B[N,K], the
// layout of a fully connected layer's weight), with B prepacked into panels ([ceil(N/P)][K][P], the
// layout the in-kernel packing makes, done once at model build time for a constant weight), and
// with an epilogue (dense_epilogue.h: bias, then ReLU, GELU or a residual add).
//
// The schedule follows fast CPU GEMMs: an mr x nr register tile of accumulators (nr a multiple of
// the vector width) updated by broadcast A values times contiguous vectors of a packed B panel
// ([N/nr][K][nr]); tiles iterated in cache blocks of mb tiles, in either loop order; optionally K
// blocked into kc-deep slabs accumulated into C, so the panel a tile streams stays in cache.
#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/error.h"
#include "compiler/ops/dense_epilogue.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/vector_columns.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

// A product of few rows reads each weight once for a handful of FMAs: it is bound by the weight's
// bytes, so the default streams B as it lies (packing it would write and read it again) in the
// widest tile, without K blocking.
constexpr int64_t kGemvRows = 4;

// Where the tile loops are, for spreading the prefetch of the next panel over them.
struct TileLoops {
  Expr panel;           // the panel of B the current tile reads
  Expr tile;            // which of the tiles reading this panel (in this K block) it is
  int64_t tiles = 1;    // how many tiles read a panel in a row
  Expr k_step;          // the tile's k loop (k.outer)
  int64_t k_steps = 1;  // its extent
  Expr k_block_start;   // the first k of the K block
  int64_t k_block = 1;  // the K block's depth
};

// A prepacked B panel is read from memory by the first tile that reads it: with the weight out of
// cache (a model's weights do not fit in it) that tile waits for every line. Instead, each step of
// the tiles reading panel p asks for its share of panel p + 1, so the next panel is in L2 by the
// time it is needed: about one prefetch per k step, the whole panel over the run of tiles.
void prefetch_next_panel(schedule::Stage& tile_stage, const IterVar& k_outer, const Tensor& B, const TileLoops& at) {
  const int64_t panels = B.shape()[0], P = B.shape()[2];
  const int64_t floats_per_line = 16;
  const int64_t lines = (at.k_block * P + floats_per_line - 1) / floats_per_line;
  const int64_t steps = at.tiles * at.k_steps;
  const int64_t per_step = std::min<int64_t>(8, (lines + steps - 1) / steps);
  Expr step = at.tile * ir::make_int(at.k_steps) + at.k_step;
  Expr next = ir::min(at.panel + 1, ir::make_int(panels - 1));
  for (int64_t i = 0; i < per_step; ++i) {
    Expr line = ir::floordiv((step * ir::make_int(per_step) + ir::make_int(i)) * ir::make_int(lines),
                             ir::make_int(steps * per_step));
    Expr element = line * ir::make_int(floats_per_line);
    tile_stage.prefetch(
        B, k_outer,
        {next, at.k_block_start + ir::floordiv(element, ir::make_int(P)), ir::floormod(element, ir::make_int(P))});
  }
}

class Dense : public Operator {
 public:
  enum class BLayout { KN, NK, Panels };

  Dense(BLayout layout, DenseEpilogue e) : layout_(layout), epilogue_(e) {}

  std::string name() const override {
    const char* base = layout_ == BLayout::NK ? "dense_nt" : layout_ == BLayout::Panels ? "dense_packed" : "dense";
    return base + dense_epilogue_suffix(epilogue_);
  }
  std::string description() const override {
    const char* b = layout_ == BLayout::NK       ? "B[N,K]^T"
                    : layout_ == BLayout::Panels ? "B (panels Bp[ceil(N/P)][K][P], zero past N)"
                                                 : "B[K,N]";
    return std::string("C[M,N] = A[M,K] * ") + b + dense_epilogue_text(epilogue_);
  }
  std::vector<std::string> shape_names() const override {
    if (layout_ == BLayout::Panels) return {"M", "N", "K", "P"};
    return {"M", "N", "K"};
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return 2 * s[0] * s[1] * s[2]; }

  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    std::vector<std::vector<int64_t>> in = {{s[0], s[2]}, b_shape(s)};
    if (has_bias(epilogue_)) in.push_back({s[1]});
    if (has_residual(epilogue_)) in.push_back({s[0], s[1]});
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1]}; }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t M = s[0], N = s[1], K = s[2];
    out->assign(static_cast<size_t>(M * N), 0.0f);
    tol->assign(static_cast<size_t>(M * N), 0.0f);
    // Relative to the products' magnitudes: a wrong kernel misses by whole products.
    const double gamma = summation_bound(static_cast<double>(K));
    std::vector<double> acc(static_cast<size_t>(N)), mag(static_cast<size_t>(N));
    for (int64_t m = 0; m < M; ++m) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (int64_t k = 0; k < K; ++k) {
        double a = in[0][m * K + k];
        for (int64_t n = 0; n < N; ++n) {
          double b = in[1][b_index(s, k, n)];
          acc[n] += a * b;
          mag[n] += std::fabs(a * b);
        }
      }
      for (int64_t n = 0; n < N; ++n) {
        const double bias = has_bias(epilogue_) ? in[2][n] : 0.0;
        const double residual = has_residual(epilogue_) ? in[3][m * N + n] : 0.0;
        double error = 0;
        const double v = dense_epilogue_reference(
            epilogue_, acc[n], gamma * mag[n] + 2 * kUnitRoundoff * std::fabs(acc[n]), bias, residual, &error);
        (*out)[m * N + n] = static_cast<float>(v);
        (*tol)[m * N + n] = static_cast<float>(error + 2 * kUnitRoundoff * std::fabs(v) + 1e-30);
      }
    }
  }

  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape(s);
    if (layout_ == BLayout::Panels && s[3] > s[1] && s[3] > 64) {
      throw CompileError("op '" + name() + "': extent P = " + std::to_string(s[3]) +
                         " (panel width) exceeds N = " + std::to_string(s[1]) + " and 64");
    }
  }

 private:
  std::vector<int64_t> b_shape(const std::vector<int64_t>& s) const {
    switch (layout_) {
      case BLayout::NK: return {s[1], s[2]};
      case BLayout::Panels: return {(s[1] + s[3] - 1) / s[3], s[2], s[3]};
      default: return {s[2], s[1]};
    }
  }
  int64_t b_index(const std::vector<int64_t>& s, int64_t k, int64_t n) const {
    switch (layout_) {
      case BLayout::NK: return n * s[2] + k;
      case BLayout::Panels: return ((n / s[3]) * s[2] + k) * s[3] + n % s[3];
      default: return k * s[1] + n;
    }
  }

  BLayout layout_;
  DenseEpilogue epilogue_;
};

space::ConfigSpace Dense::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const int64_t M = s[0], N = s[1], K = s[2];
  const int64_t lanes = std::max(1, t.float32_lanes());
  const bool gemv = M <= kGemvRows;
  space::ConfigSpace cs;
  using space::capped_choices, space::index_of_choice;
  // The default is what an untuned model runs: a register tile of half the vector registers as
  // accumulators (8 rows x 2 vectors on AVX-512 for a 32-wide panel, 4 x 4 for the unpacked 4-vector
  // default), the whole K in one slab while a panel stays within 512 KiB of L2, in M blocks of 16
  // tiles; the smallest tile is far slower.
  const int64_t nr_default = layout_ == BLayout::Panels ? s[3] : 4 * lanes;
  const int64_t accumulators = std::max(1, t.vector_registers / 2);
  const auto mr = capped_choices({1, 2, 3, 4, 6, 8, 12, 16}, M);
  cs.add_knob("mr", mr,
              index_of_choice(mr, std::max<int64_t>(1, accumulators / std::max<int64_t>(1, nr_default / lanes))),
              "rows of the register tile of accumulators");
  if (layout_ == BLayout::Panels) {
    // The panel width is the packed weight's: a tile of its columns reads one panel.
    cs.add_knob("nr", {Json(s[3])}, 0, "columns of the register tile: the width P of B's panels");
  } else {
    const auto nr = capped_choices({lanes, 2 * lanes, 3 * lanes, 4 * lanes}, N);
    cs.add_knob("nr", nr, index_of_choice(nr, nr_default),
                "columns of the register tile (multiples of the vector width) and width of a packed B panel");
  }
  std::vector<Json> kc;
  for (int64_t d = 64; d < K; ++d) {
    if (K % d == 0 && d % 16 == 0) kc.emplace_back(d);
  }
  kc.emplace_back(K);
  const bool whole_k = gemv || K * nr_default * 4 <= (int64_t{512} << 10);
  cs.add_knob("kc", kc, whole_k ? kc.size() - 1 : index_of_choice(kc, 512),
              "depth of a K block accumulated into C (K itself: no K blocking)");
  const auto mb = capped_choices({1, 2, 4, 8, 16}, M);
  cs.add_knob("mb", mb, index_of_choice(mb, 16), "register tiles per M cache block");
  cs.add_knob("order", {Json("mn"), Json("nm")}, 0, "order of the cache-block loops over M and N");
  const auto unroll = capped_choices({1, 2, 4, 8}, K);
  cs.add_knob("unroll_k", unroll, index_of_choice(unroll, 4), "unroll depth of the k loop inside a tile");
  cs.add_knob("vectorize", {Json(true), Json(false)}, 0, "vectorize the tile's columns");
  if (layout_ != BLayout::Panels) {
    cs.add_knob("pack_b", {Json(false), Json(true)}, gemv ? 0 : 1, "pack B into [N/nr][K][nr] panels first");
  } else {
    cs.add_knob("prefetch", {Json(false), Json(true)}, 1,
                "while the tiles read a panel, prefetch the next one into L2, a line per k step");
  }
  cs.add_knob("parallel", {Json(false), Json(true)}, 1, "run the outer tile loops on the thread pool");
  return cs;
}

Scheduled Dense::schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const {
  const int64_t M = s[0], N = s[1], K = s[2];
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t mr = cfg.get_int("mr"), nr = cfg.get_int("nr"), kc = cfg.get_int("kc"), mb = cfg.get_int("mb");
  const int64_t unroll_k = cfg.get_int("unroll_k");
  const bool prepacked = layout_ == BLayout::Panels;
  const bool vectorize = cfg.get_bool("vectorize"), parallel = cfg.get_bool("parallel");
  const bool pack_b = !prepacked && cfg.get_bool("pack_b");
  const bool n_outer = cfg.get_string("order") == "nm";
  const auto dt = ir::DataType::float32();

  Tensor A = te::placeholder({M, K}, dt, "A");
  Tensor B = te::placeholder(b_shape(s), dt, "B");
  Tensor bias, residual;
  if (has_bias(epilogue_)) bias = te::placeholder({N}, dt, "bias");
  if (has_residual(epilogue_)) residual = te::placeholder({M, N}, dt, "R");
  auto b_src = [&](Expr k, Expr n) { return layout_ == BLayout::NK ? B(n, k) : B(k, n); };

  // B, or its packed panels: PB[n/nr][k][n%nr], zero-padded past N so every panel is full.
  Tensor packed;
  std::function<Expr(Expr, Expr)> b_at = b_src;
  if (prepacked) b_at = [&](Expr k, Expr n) { return B(ir::floordiv(n, nr), k, ir::floormod(n, nr)); };
  if (pack_b) {
    const int64_t panels = (N + nr - 1) / nr;
    packed = te::compute({panels, K, nr},
                         [&](const te::Indices& i) {
                           Expr n = i[0] * nr + i[2];
                           return N % nr == 0 ? b_src(i[1], n)
                                              : ir::make_select(n < N, b_src(i[1], ir::min(n, N - 1)), Expr(0.0f));
                         },
                         "B.packed", {"np", "k", "ni"});
    b_at = [&](Expr k, Expr n) { return packed(ir::floordiv(n, nr), k, ir::floormod(n, nr)); };
  }

  // The tile stage accumulates a K slab in registers; without K blocking it is C's cache_write.
  const bool k_blocked = kc < K;
  Tensor C, partial;
  if (k_blocked) {
    IterVar ki = te::reduce_axis(kc, "k.inner");
    partial = te::compute({K / kc, M, N},
                          [&](const te::Indices& i) {
                            Expr k = i[0] * kc + ir::to_expr(ki->var);
                            return te::sum(A(i[1], k) * b_at(k, i[2]), {ki});
                          },
                          "C.partial", {"ko", "m", "n"});
    IterVar ko = te::reduce_axis(K / kc, "k.outer");
    C = te::compute({M, N},
                    [&](const te::Indices& i) { return te::sum(partial(ir::to_expr(ko->var), i[0], i[1]), {ko}); }, "C",
                    {"m", "n"});
  } else {
    IterVar k = te::reduce_axis(K, "k");
    C = te::compute({M, N},
                    [&](const te::Indices& i) {
                      return te::sum(A(i[0], ir::to_expr(k->var)) * b_at(ir::to_expr(k->var), i[1]), {k});
                    },
                    "C", {"m", "n"});
  }
  Tensor out = C;
  if (epilogue_ != DenseEpilogue::None) {
    out = te::compute({M, N},
                      [&](const te::Indices& i) {
                        return dense_epilogue_ir(epilogue_, C(i[0], i[1]), bias(i[1]),
                                                 residual.op() ? residual(i[0], i[1]) : Expr(0.0f));
                      },
                      "C.out", {"m", "n"});
  }

  Scheduled result;
  result.inputs = {A, B};
  if (bias.op()) result.inputs.push_back(bias);
  if (residual.op()) result.inputs.push_back(residual);
  result.outputs = {out};
  result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
  schedule::Schedule& sch = *result.schedule;

  // The stage whose loops walk the tiles (`walker`) and the register tile computed inside it.
  Tensor walker, tile;
  if (k_blocked) {
    walker = C;
    tile = partial;
  } else if (epilogue_ != DenseEpilogue::None) {
    walker = out;
    tile = C;
  } else {
    walker = C;
    tile = sch.cache_write(C);
  }

  auto vector_columns = [&](schedule::Stage& st, const IterVar& col) {
    if (vectorize) vectorize_columns(st, col, lanes);
  };

  schedule::Stage& w = sch[walker];
  auto [m_o, m_i] = w.split(w.axis(0), mr);
  auto [n_o, n_i] = w.split(w.axis(1), nr);
  auto [m_oo, m_oi] = w.split(m_o, mb);
  std::vector<IterVar> order;
  if (k_blocked) order.push_back(w.reduce_axis(0));
  if (n_outer)
    order.insert(order.end(), {n_o, m_oo});
  else
    order.insert(order.end(), {m_oo, n_o});
  order.insert(order.end(), {m_oi, m_i, n_i});
  w.reorder(order);
  sch[tile].compute_at(w, m_oi);
  vector_columns(w, n_i);
  // Rows written back one by one index the tile by constants, so LLVM keeps the whole tile in
  // registers (SROA) even where a call in the k loop (a prefetch) keeps LICM from promoting it.
  if (!k_blocked) w.unroll(m_i);
  IterVar fused;
  if (parallel) {
    fused = w.fuse(order[k_blocked ? 1 : 0], order[k_blocked ? 2 : 1]);
    w.parallel(fused);
  }

  schedule::Stage& r = sch[tile];
  size_t first_spatial = k_blocked ? 1 : 0;  // the partial tile's K-block axis has extent 1 here
  IterVar rm = r.axis(first_spatial), rn = r.axis(first_spatial + 1);
  auto [k_o, k_i] = r.split(r.reduce_axis(0), unroll_k);
  std::vector<IterVar> tile_order;
  if (k_blocked) tile_order.push_back(r.axis(0));
  tile_order.insert(tile_order.end(), {k_o, k_i, rm, rn});
  r.reorder(tile_order);
  r.unroll(k_i);
  r.unroll(rm);
  vector_columns(r, rn);
  if (prepacked && cfg.get_bool("prefetch")) {
    const int64_t panels = (N + nr - 1) / nr, m_tiles = (M + mr - 1) / mr, m_blocks = (m_tiles + mb - 1) / mb;
    auto var = [](const IterVar& iv) { return ir::to_expr(iv->var); };
    TileLoops at;
    if (n_outer) {
      at.panel = fused ? ir::floordiv(var(fused), ir::make_int(m_blocks)) : var(n_o);
      Expr block = fused ? ir::floormod(var(fused), ir::make_int(m_blocks)) : var(m_oo);
      at.tile = block * ir::make_int(mb) + var(m_oi);
      at.tiles = m_tiles;
    } else {
      at.panel = fused ? ir::floormod(var(fused), ir::make_int(panels)) : var(n_o);
      at.tile = var(m_oi);
      at.tiles = std::min(mb, m_tiles);
    }
    at.k_step = var(k_o);
    at.k_steps = (kc + unroll_k - 1) / unroll_k;
    at.k_block_start = k_blocked ? var(w.reduce_axis(0)) * ir::make_int(kc) : ir::make_int(0);
    at.k_block = kc;
    prefetch_next_panel(r, k_o, B, at);
  }

  if (k_blocked && epilogue_ != DenseEpilogue::None) {
    schedule::Stage& e = sch[out];
    vector_columns(e, e.axis(1));
    if (parallel) e.parallel(e.axis(0));
  }
  if (pack_b) {
    schedule::Stage& p = sch[packed];
    vector_columns(p, p.axis(2));
    if (parallel) p.parallel(p.axis(0));
  }
  return result;
}

}  // namespace

void register_dense_operators(Registry& r) {
  using L = Dense::BLayout;
  using E = DenseEpilogue;
  const E epilogues[] = {E::None, E::Bias, E::BiasRelu, E::BiasGelu, E::BiasGeluTanh, E::BiasAdd};
  r.add(std::make_unique<Dense>(L::KN, E::None));
  r.add(std::make_unique<Dense>(L::NK, E::None));
  for (E e : epilogues) {
    if (e != E::None) r.add(std::make_unique<Dense>(L::KN, e));
  }
  for (E e : epilogues) r.add(std::make_unique<Dense>(L::Panels, e));
}

}  // namespace tf::ops

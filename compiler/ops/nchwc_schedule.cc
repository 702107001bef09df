#include "compiler/ops/nchwc_schedule.h"

#include <algorithm>

#include "compiler/ops/nchwc_epilogue.h"

namespace tf::ops {

int64_t accumulator_budget(int64_t vector_registers) { return vector_registers - 4; }

void limit_register_tile(space::ConfigSpace& cs, const std::vector<std::string>& knobs, int64_t vectors_per_entry,
                         int64_t vector_registers) {
  const space::Config def = cs.default_config();
  int64_t default_vectors = vectors_per_entry;
  for (const std::string& k : knobs) default_vectors *= def.get_int(k);
  cs.limit_product(knobs, vectors_per_entry, std::max(2 * vector_registers, default_vectors),
                   "register tiles of at most twice the vector registers");
}

namespace {

const std::vector<int64_t> kOwTiles = {4, 6, 7, 8, 12, 14, 16, 24, 28};

// Useful columns per tile row: a tile of t columns over ow wastes ceil(ow/t)*t - ow of them.
double useful_width(int64_t t, int64_t ow) {
  const int64_t tiles = (ow + t - 1) / t;
  return static_cast<double>(t) * static_cast<double>(ow) / static_cast<double>(tiles * t);
}

}  // namespace

int64_t default_ow_tile(int64_t ow, int64_t vectors_per_column, int64_t budget) {
  const auto choices = ow_tile_choices(ow);
  int64_t best_tile = choices.front().get<int64_t>();
  double best = -1;
  for (const Json& choice : choices) {
    const int64_t t = choice.get<int64_t>();
    if (t * vectors_per_column > budget) continue;
    const double score = useful_width(t, ow);
    if (score > best) best = score, best_tile = t;
  }
  return best_tile;
}

RegisterTile default_register_tile(int64_t oh, int64_t ow, int64_t k_blocks, int64_t vectors_per_block, bool row_tiles,
                                   int64_t vector_registers) {
  const int64_t budget = accumulator_budget(vector_registers);
  RegisterTile tile;
  tile.oc_blocks = k_blocks >= 2 && 2 * vectors_per_block * 4 <= budget ? 2 : 1;
  const int64_t per_column = tile.oc_blocks * vectors_per_block;
  tile.ow_tile = default_ow_tile(ow, per_column, budget);
  if (row_tiles) {
    for (int64_t rows : {2, 4}) {
      // A ragged last row tile costs more than the shared weight loads save (7 rows in tiles of 2).
      if (oh % rows == 0 && rows * tile.ow_tile * per_column <= budget) tile.oh_tile = rows;
    }
  }
  return tile;
}

std::vector<Json> int_choices(const std::vector<int64_t>& options, int64_t extent) {
  std::vector<Json> out;
  for (int64_t o : options) {
    if (o <= extent || out.empty()) out.emplace_back(o);
  }
  return out;
}

std::vector<Json> divisor_choices(const std::vector<int64_t>& options, int64_t extent) {
  std::vector<Json> out;
  for (int64_t o : options) {
    if ((o > 0 && extent % o == 0) || out.empty()) out.emplace_back(o);
  }
  return out;
}

std::vector<Json> ow_tile_choices(int64_t ow) {
  std::vector<int64_t> widths;
  for (int64_t t : kOwTiles) {
    if (t <= ow) widths.push_back(t);
  }
  if (ow < kOwTiles.back() && std::find(widths.begin(), widths.end(), ow) == widths.end()) widths.push_back(ow);
  std::vector<Json> out;
  out.reserve(widths.size());
  for (int64_t t : widths) out.emplace_back(t);
  return out;
}

void add_parallel_knob(space::ConfigSpace& cs, const std::string& default_choice) {
  const std::vector<Json> choices = {Json("y"), Json("nky"), Json("nk"), Json("none"), Json("yk")};
  size_t def = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == default_choice) def = i;
  }
  cs.add_knob("parallel", choices, def,
              "the parallel loop: output-row tiles alone (outside the channel blocks, so partition_loops can still cut "
              "the padded edges off), batch x channel blocks x output-row tiles fused, batch x channel blocks fused, "
              "none, or batch x output-row tiles x channel blocks fused");
  // Inside a model each thread reads what its own core wrote when every conv shares the rows out
  // alike: a conv that shares out channel blocks instead reads half its input from the other cores'
  // caches (2-3x its time alone on MobileNetV2's 2-thread layers), which timing a kernel alone
  // cannot see. So the search keeps to the row splits; the others still build when named.
  cs.search_only("parallel", {Json("y"), Json("yk")}, "threads share out output rows, as their neighbours do");
}

std::string default_parallel(int64_t row_tiles) { return row_tiles >= 16 ? "y" : "yk"; }

void apply_parallel(schedule::Stage& st, const std::string& choice, const ir::IterVar& n, const ir::IterVar& blocks,
                    const ir::IterVar& rows) {
  if (choice == "y") {
    st.reorder({n, rows, blocks});
    st.parallel(rows);
  }
  if (choice == "nky") st.parallel(st.fuse(st.fuse(n, blocks), rows));
  if (choice == "nk") st.parallel(st.fuse(n, blocks));
  if (choice == "yk") {
    st.reorder({n, rows, blocks});
    st.parallel(st.fuse(st.fuse(n, rows), blocks));
  }
}

PaddedInput padded_input(const te::Tensor& data, const Conv2dShape& c, ir::Expr outside) {
  if (!outside.get()) outside = ir::make_const(data.dtype(), 0.0);
  return [data, c, outside](ir::Expr n, ir::Expr cb, ir::Expr iy, ir::Expr ix, ir::Expr ci) -> ir::Expr {
    using ir::Expr;
    Expr y = iy - Expr(c.pad_top), x = ix - Expr(c.pad_left);
    Expr inside;
    auto require = [&](Expr cond) { inside = inside.get() ? ir::logical_and(inside, cond) : cond; };
    if (c.pad_top) require(y >= Expr(int64_t{0}));
    if (c.pad_bottom) require(y < Expr(c.h));
    if (c.pad_left) require(x >= Expr(int64_t{0}));
    if (c.pad_right) require(x < Expr(c.w));
    if (!inside.get()) return data(n, cb, y, x, ci);
    Expr cy = ir::min(ir::max(y, Expr(int64_t{0})), Expr(c.h - 1));
    Expr cx = ir::min(ir::max(x, Expr(int64_t{0})), Expr(c.w - 1));
    return ir::make_select(inside, data(n, cb, cy, cx, ci), outside);
  };
}

te::Tensor padded_copy(const te::Tensor& data, const Conv2dShape& c, const PaddedInput& read) {
  const auto& s = data.shape();
  return te::compute({s[0], s[1], c.h + c.pad_top + c.pad_bottom, c.w + c.pad_left + c.pad_right, s[4]},
                     [&](const te::Indices& i) { return read(i[0], i[1], i[2], i[3], i[4]); }, "data.padded",
                     {"n", "cb", "y", "x", "l"});
}

void schedule_padded_copy(schedule::Stage& st, const std::string& parallel, int64_t block, int64_t lanes) {
  // Rows, not just (n, channel blocks): a first layer's few input channels make one block, and a
  // copy parallel over blocks alone would run on one thread.
  const ir::IterVar lane = st.axis(4);
  const ir::IterVar rows = st.fuse(st.fuse(st.axis(0), st.axis(1)), st.axis(2));
  if (parallel != "none") st.parallel(rows);
  if (lanes > 1 && block <= lanes) st.vectorize(lane);
}

NchwcInput nchwc_input(const te::Tensor& data, const Conv2dShape& c, bool copy, ir::Expr outside) {
  NchwcInput in{te::Tensor(), padded_input(data, c, std::move(outside))};
  if (!copy) return in;
  in.padded = padded_copy(data, c, in.at);
  in.at = [padded = in.padded](ir::Expr n, ir::Expr cb, ir::Expr iy, ir::Expr ix, ir::Expr ci) {
    return padded(n, cb, iy, ix, ci);
  };
  return in;
}

namespace {

// The output's loops (n, ko, y, x, lane) tiled into micro-kernels, the tile unrolled and its lanes
// vectorized; returns the loops outside the tile.
struct TileLoops {
  ir::IterVar n, k_o, y_o, x_o;
};
TileLoops tile_output_loops(schedule::Stage& w, const OutputTile& tile, int64_t block, int64_t lanes) {
  auto [k_o, k_i] = w.split(w.axis(1), tile.oc_blocks);
  auto [y_o, y_i] = w.split(w.axis(2), tile.oh_tile);
  auto [x_o, x_i] = w.split(w.axis(3), tile.ow_tile);
  ir::IterVar n = w.axis(0), l = w.axis(4);
  w.reorder({n, k_o, y_o, x_o, k_i, y_i, x_i, l});
  w.unroll(k_i);
  w.unroll(y_i);
  w.unroll(x_i);
  vectorize_lanes(w, l, block, lanes);
  return {n, k_o, y_o, x_o};
}

}  // namespace

RegisterTile add_register_tile_knobs(space::ConfigSpace& cs, const Conv2dShape& c, int64_t k_blocks,
                                     int64_t vectors_per_block, int64_t vector_registers, const std::string& shares) {
  const bool row_tiles = (c.r == 1 && c.s == 1) || c.ow() <= 14;
  const RegisterTile def =
      default_register_tile(c.oh(), c.ow(), k_blocks, vectors_per_block, row_tiles, vector_registers);
  // The register tile spans the shapes the micro-kernel can take up to twice the register file,
  // spilling ones included: which fits best depends on the layer and the board, and telling them
  // apart is the cost model's job.
  auto kb = int_choices({1, 2, 4}, k_blocks);
  cs.add_knob("oc_blocks", kb, space::index_of_choice(kb, def.oc_blocks),
              "output-channel blocks (of ob) per micro-kernel: each shares one " + shares);
  auto ow = ow_tile_choices(c.ow());
  cs.add_knob("ow_tile", ow, space::index_of_choice(ow, def.ow_tile),
              "output columns per micro-kernel (the register tile's width)");
  auto oh = int_choices({1, 2, 4}, c.oh());
  cs.add_knob("oh_tile", oh, space::index_of_choice(oh, def.oh_tile),
              "output rows per micro-kernel: rows share the weight vectors (1x1 kernels, narrow rows)");
  return def;
}

te::Tensor tile_nchwc_output(schedule::Schedule& sch, const te::Tensor& conv, const te::Tensor& out,
                             const OutputTile& tile, int64_t block, int64_t lanes, const std::string& parallel) {
  te::Tensor acc = out.op() == conv.op() ? sch.cache_write(conv) : conv;
  schedule::Stage& w = sch[out];
  const TileLoops loops = tile_output_loops(w, tile, block, lanes);
  sch[acc].compute_at(w, loops.x_o);
  apply_parallel(w, parallel, loops.n, loops.k_o, loops.y_o);
  return acc;
}

te::Tensor plane_nchwc_output(schedule::Schedule& sch, const te::Tensor& conv, const te::Tensor& out,
                              const OutputTile& tile, int64_t block, int64_t lanes, const std::string& parallel) {
  te::Tensor acc = out.op() == conv.op() ? sch.cache_write(conv) : conv;
  schedule::Stage& w = sch[out];
  const TileLoops loops = tile_output_loops(w, tile, block, lanes);
  sch[acc].compute_at(w, loops.k_o);
  if (parallel != "none") w.parallel(w.fuse(loops.n, loops.k_o));
  return acc;
}

void add_accumulate_knob(space::ConfigSpace& cs, int64_t plane_bytes, int64_t max_plane_bytes) {
  cs.add_knob("accumulate", {Json("tile"), Json("plane")}, plane_bytes <= max_plane_bytes ? 1 : 0, 0,
              "accumulators per micro-kernel tile (the whole reduction inside it) or over the plane of oc_blocks "
              "(each input-channel block's weights read from L1 by every tile)");
}

bool accumulates_plane(const space::Config& cfg) { return cfg.get_string("accumulate") == "plane"; }

void append_plane_tiles(schedule::Stage& acc, const OutputTile& tile, ir::IterVar* ty, ir::IterVar* tx,
                        std::vector<ir::IterVar>* order) {
  auto [ty_o, ty_i] = acc.split(*ty, tile.oh_tile);
  auto [tx_o, tx_i] = acc.split(*tx, tile.ow_tile);
  order->insert(order->end(), {ty_o, tx_o});
  *ty = ty_i;
  *tx = tx_i;
}

}  // namespace tf::ops

// What the NCHWc templates share when they declare their config spaces and build their schedules:
// the default register tile, knob choices capped by the shape, the parallel-granularity knob, and
// the zero-padded input (read through a guard or copied first).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d_shape.h"
#include "compiler/schedule/schedule.h"
#include "compiler/space/config_space.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {

// A micro-kernel's accumulators: oc_blocks x oh_tile x ow_tile entries of vectors_per_block vectors.
struct RegisterTile {
  int64_t oc_blocks = 1, oh_tile = 1, ow_tile = 1;
};

// How many accumulator vectors a micro-kernel may keep on a target with `vector_registers`
// registers: the register file less the weight vectors and the broadcast value (AVX-512 and
// AArch64: 28 of 32; AVX2: 12 of 16).
int64_t accumulator_budget(int64_t vector_registers);
// Leaves register tiles larger than twice the register file (or than the default's, when that is
// larger) out of the search: the product of `knobs` (declared on `cs`), times the vectors each
// entry takes. Such tiles spill on every step and cost seconds to compile (4 x 16 x 4 entries of
// two AVX2 vectors: 34 s), where a good tile costs about 0.1 s.
void limit_register_tile(space::ConfigSpace& cs, const std::vector<std::string>& knobs, int64_t vectors_per_entry,
                         int64_t vector_registers);

// The default tile of a dense NCHWc conv: two channel blocks when there are two, then the widest
// output-width tile that fits the budget and wastes least of a row, and when `row_tiles` as many
// rows as still fit and divide oh.
RegisterTile default_register_tile(int64_t oh, int64_t ow, int64_t k_blocks, int64_t vectors_per_block, bool row_tiles,
                                   int64_t vector_registers);

// The register tile's knobs of a dense NCHWc conv over `c` with k_blocks output-channel blocks
// (oc_blocks, ow_tile, oh_tile), defaulting to default_register_tile with rows stacked for 1x1
// kernels and narrow rows (the late layers' 7 or 14 columns, whose one-row tile leaves registers
// unused); `shares` says what an oc_block shares (a broadcast input value, a group of input bytes).
// Returns the default tile.
RegisterTile add_register_tile_knobs(space::ConfigSpace& cs, const Conv2dShape& c, int64_t k_blocks,
                                     int64_t vectors_per_block, int64_t vector_registers, const std::string& shares);

// The output-width tile that wastes least of a row of `ow` columns among those whose
// accumulators (vectors_per_column each) fit `budget`.
int64_t default_ow_tile(int64_t ow, int64_t vectors_per_column, int64_t budget);

// The choices of `options` up to `extent` (at least the first), as knob choices.
std::vector<Json> int_choices(const std::vector<int64_t>& options, int64_t extent);
// The choices of `options` that divide `extent` (at least the first), as knob choices.
std::vector<Json> divisor_choices(const std::vector<int64_t>& options, int64_t extent);
// Output-width tiles for a row of `ow` columns: the usual tile widths up to ow, and the whole row
// when it is narrower than the widest.
std::vector<Json> ow_tile_choices(int64_t ow);

// "parallel": which of the tile loops (n, channel blocks, output rows) the thread pool shares out.
// A fused loop cannot be cut by partition_loops, so padded edges keep their selects in every tile
// of it; "y" shares out the output-row tiles alone (walking the channel blocks inside each), "yk"
// the row tiles fused with the blocks inside them. The search keeps to those two row splits.
void add_parallel_knob(space::ConfigSpace& cs, const std::string& default_choice);
// The default of a layer with this many output-row tiles: "y" for many, "yk" for few.
std::string default_parallel(int64_t row_tiles);
void apply_parallel(schedule::Stage& st, const std::string& choice, const ir::IterVar& n, const ir::IterVar& blocks,
                    const ir::IterVar& rows);

// The blocked input at padded coordinates: (n, channel block, iy, ix, lane) -> value, zero outside
// the data (or `outside`, the input's zero point of a quantized conv). Only the sides that have
// padding are tested; clamped indices keep loads in bounds.
using PaddedInput = std::function<ir::Expr(ir::Expr, ir::Expr, ir::Expr, ir::Expr, ir::Expr)>;
PaddedInput padded_input(const te::Tensor& data, const Conv2dShape& c, ir::Expr outside = ir::Expr());
// The zero-padded copy of `data` (n, blocks, h + pads, w + pads, b) made from `read`.
te::Tensor padded_copy(const te::Tensor& data, const Conv2dShape& c, const PaddedInput& read);
void schedule_padded_copy(schedule::Stage& st, const std::string& parallel, int64_t block, int64_t lanes);

// The input as the conv reads it: through the guard, or (`copy`) from the zero-padded copy.
struct NchwcInput {
  te::Tensor padded;  // the copy; none when read through the guard
  PaddedInput at;
};
NchwcInput nchwc_input(const te::Tensor& data, const Conv2dShape& c, bool copy, ir::Expr outside = ir::Expr());

// The micro-kernel tile of the output loops (n, ko, y, x, lane).
struct OutputTile {
  int64_t oc_blocks = 1, oh_tile = 1, ow_tile = 1;
};
// Tiles `out` (the epilogue stage over `conv`, or `conv` itself) into micro-kernels: the tile loops
// outside and parallel as `parallel`, the tile unrolled and its `block` lanes vectorized. The
// accumulators, `conv` or its cache when `out` is `conv`, are computed inside each tile; returns
// them, for the template to order its reduction.
te::Tensor tile_nchwc_output(schedule::Schedule& sch, const te::Tensor& conv, const te::Tensor& out,
                             const OutputTile& tile, int64_t block, int64_t lanes, const std::string& parallel);
// The same tiling of `out`, with the accumulators computed per output-channel tile over the whole
// plane (all rows and columns of oc_blocks blocks) instead of per micro-kernel tile, so the
// template can put the reduction over input-channel blocks outside its own tile loops: each block
// of weights is then read from L1 by every tile of the plane (a 7x7 layer's 512 x 512 x 3 x 3
// weights otherwise stream from L2 once per tile). Only the batch and channel tiles can be
// parallel: a `parallel` over rows runs the channel tiles in parallel instead.
te::Tensor plane_nchwc_output(schedule::Schedule& sch, const te::Tensor& conv, const te::Tensor& out,
                              const OutputTile& tile, int64_t block, int64_t lanes, const std::string& parallel);
// The knob choosing between them ("accumulate": "tile" or "plane"), plane by default where the
// plane's accumulators (`plane_bytes` for the default tile's channel blocks) take at most
// `max_plane_bytes`; configs without the knob (records written before it) mean "tile".
void add_accumulate_knob(space::ConfigSpace& cs, int64_t plane_bytes, int64_t max_plane_bytes);
bool accumulates_plane(const space::Config& cfg);
// With plane accumulation: splits the accumulators' rows `ty` and columns `tx` into the micro-kernel
// tile (they become the tile's) and appends the tile loops to `order`, after the reduction over
// channel blocks the template put there.
void append_plane_tiles(schedule::Stage& acc, const OutputTile& tile, ir::IterVar* ty, ir::IterVar* tx,
                        std::vector<ir::IterVar>* order);

}  // namespace tf::ops

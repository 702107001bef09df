// The register-tiled correlation conv3d and conv3d_transpose share: out[n, k, z, y, x] (+ bias,
// then ReLU) = sum over (c in k's group, kz, ky, kx) of source[n, c, z*sz + kz*dz, ...] *
// weight_at(k, c, kz, ky, kx). conv3d's source is its zero-padded input; conv3d_transpose's is its
// input with stride - 1 zeros between elements and the flipped kernel, read at stride 1.
#pragma once

#include <array>
#include <functional>

#include "compiler/ops/operator.h"

namespace tf::ops {

struct Conv3dTile {
  std::vector<int64_t> out_shape;  // n, k, od, oh, ow
  int64_t groups = 1, c_per_group = 1, k_per_group = 1;
  std::array<int64_t, 3> kernel{}, stride{}, dilation{};
  te::Tensor data, weight, bias;  // the kernel's arguments (bias may be absent)
  bool relu = false;
  te::Tensor source;  // a stage made from data, or none: data itself
  std::function<ir::Expr(ir::Expr k, ir::Expr c_in_group, ir::Expr kz, ir::Expr ky, ir::Expr kx)> weight_at;
};

// Knobs: kb (output channels per tile), xw (output columns per tile, vectorized), parallel.
space::ConfigSpace conv3d_tile_space(int64_t k, int64_t ow, const codegen::Target& t);
Scheduled schedule_conv3d_tile(const Conv3dTile& tile, const space::Config& cfg, const codegen::Target& t);

}  // namespace tf::ops

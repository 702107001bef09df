// How the templates vectorize a tile's columns (conv2d, conv3d, dense, batch_matmul, attention).
#pragma once

#include <cstdint>

#include "compiler/ops/operator.h"

namespace tf::ops {

// A tile no wider than a vector is one (possibly partial) vector; a wider one is cut into the
// widest power-of-two fraction of the target's vector that divides it.
int64_t vector_width(int64_t columns, int64_t lanes);

// Splits `column` of `stage` into unrolled vectors of `width` lanes (nothing when width <= 1).
void vectorize_columns(schedule::Stage& stage, const ir::IterVar& column, int64_t width);

}  // namespace tf::ops

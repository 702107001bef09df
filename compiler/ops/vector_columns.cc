#include "compiler/ops/vector_columns.h"

namespace tf::ops {

int64_t vector_width(int64_t columns, int64_t lanes) {
  if (columns <= lanes) return columns;
  int64_t v = lanes;
  while (v > 1 && columns % v != 0) v /= 2;
  return v;
}

void vectorize_columns(schedule::Stage& stage, const ir::IterVar& column, int64_t width) {
  if (width <= 1) return;
  auto [outer, inner] = stage.split(column, width);
  stage.unroll(outer);
  stage.vectorize(inner);
}

}  // namespace tf::ops

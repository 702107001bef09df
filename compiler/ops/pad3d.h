// The zero- (or -inf-) padded view of an NCDHW tensor the 3-D window templates read (conv3d, pool3d).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/operator.h"
#include "compiler/ops/window_axes3d.h"

namespace tf::ops {

// x [n, c, d, h, w] extended by `ax`'s pads on each spatial axis: `outside` where an index falls
// in the padding, x elsewhere.
te::Tensor pad_ncdhw(const te::Tensor& x, int64_t n, int64_t c, const WindowAxes3d& ax, const ir::Expr& outside,
                     const std::string& name, const std::vector<std::string>& axis_names);

}  // namespace tf::ops

#include "compiler/ops/pad3d.h"

namespace tf::ops {

te::Tensor pad_ncdhw(const te::Tensor& x, int64_t n, int64_t c, const WindowAxes3d& ax, const ir::Expr& outside,
                     const std::string& name, const std::vector<std::string>& axis_names) {
  using ir::Expr;
  return te::compute(
      {n, c, ax[0].padded(), ax[1].padded(), ax[2].padded()},
      [&](const te::Indices& i) {
        Expr inside;
        std::vector<Expr> at = {i[0], i[1]};
        for (int a = 0; a < 3; ++a) {
          Expr v = i[2 + a] - Expr(ax[a].pad_begin);
          Expr in = ir::logical_and(v >= Expr(int64_t{0}), v < Expr(ax[a].in));
          inside = inside.get() ? ir::logical_and(inside, in) : in;
          at.push_back(ir::min(ir::max(v, Expr(int64_t{0})), Expr(ax[a].in - 1)));
        }
        return ir::make_select(inside, x(at), outside);
      },
      name, axis_names);
}

}  // namespace tf::ops

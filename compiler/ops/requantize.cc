#include "compiler/ops/requantize.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/math.h"

namespace tf::ops {

ir::Expr requantized_byte(const ir::Expr& acc_plus_bias, const ir::Expr& scale, const ir::Expr& y_zero, bool relu) {
  const auto i32 = ir::DataType::int32();
  const ir::Expr scaled = ir::make_cast(ir::DataType::float32(), acc_plus_bias) * scale;
  ir::Expr q = ir::make_cast(i32, ir::round(scaled)) + y_zero;
  q = ir::max(q, relu ? y_zero : ir::Expr(ir::make_int(0, i32)));
  q = ir::min(q, ir::make_int(255, i32));
  return ir::make_cast(ir::DataType::uint8(), q);
}

te::Tensor requantize_u8(const te::Tensor& acc, const te::Tensor& bias, const te::Tensor& scale,
                         const te::Tensor& zero_points, bool relu, const std::vector<int64_t>& out_shape) {
  return te::compute(out_shape,
                     [&](const te::Indices& i) {
                       return requantized_byte(acc(i[0], i[1], i[2], i[3], i[4]) + bias(i[1], i[4]), scale(i[1], i[4]),
                                               zero_points(ir::Expr(int64_t{1})), relu);
                     },
                     "requantize", {"n", "ko", "y", "x", "l"});
}

std::optional<runtime::FillRange> requantize_input_range(int index, int64_t products, bool centered) {
  const double typical = 128.0 * 74.0 * std::sqrt(static_cast<double>(products));
  switch (index) {
    case 1: return centered ? std::optional<runtime::FillRange>(runtime::FillRange{-127, 127}) : std::nullopt;
    case 2: return runtime::FillRange{-typical, typical};
    case 3: return runtime::FillRange{20.0 / typical, 60.0 / typical};
    case 4: return runtime::FillRange{64, 192};
    default: return std::nullopt;
  }
}

double requantize_reference(double acc, double bias, double scale, double y_zero, bool relu) {
  const double scaled = static_cast<double>(static_cast<float>(acc + bias)) * scale;
  return std::clamp(std::nearbyint(scaled) + y_zero, relu ? y_zero : 0.0, 255.0);
}

}  // namespace tf::ops

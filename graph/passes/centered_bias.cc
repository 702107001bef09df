#include "graph/passes/centered_bias.h"

#include <vector>

namespace tf::graph::passes {

std::optional<Tensor> centered_bias(const Tensor& weight, const Tensor& bias,
                                    const std::function<int64_t(int64_t)>& output_of) {
  std::vector<int64_t> out(bias.i64.begin(), bias.i64.end());
  for (size_t i = 0; i < weight.i64.size(); ++i) {
    const int64_t w = weight.i64[i];
    if (w < -127) return std::nullopt;
    out[static_cast<size_t>(output_of(static_cast<int64_t>(i)))] += 128 * w;
  }
  for (int64_t b : out) {
    if (b < INT32_MIN || b > INT32_MAX) return std::nullopt;
  }
  return Tensor::ints(bias.shape, std::move(out), bias.dtype);
}

}  // namespace tf::graph::passes

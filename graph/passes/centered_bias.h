// The int32 bias of an integer kernel that takes its input bytes centred on 128 (the ops'
// `_centered` variants, ir::Intrinsic::DotU8S8Centered): sum((x - 128) * w) + bias' is the sum
// sum(x * w) + bias stood for when bias' = bias + 128 * sum(w) per output channel.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "graph/graph.h"

namespace tf::graph::passes {

// `output_of(i)`: the output channel weight element i (row-major) adds into. nullopt when a weight
// is -128 (the centred product needs weights within [-127, 127]) or a bias would leave int32.
std::optional<Tensor> centered_bias(const Tensor& weight, const Tensor& bias,
                                    const std::function<int64_t(int64_t)>& output_of);

}  // namespace tf::graph::passes

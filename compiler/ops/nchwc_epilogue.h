// The fused epilogues of the blocked convolutions and what every NCHWc template shares when it
// builds its register tile: the epilogue expression, the zeroed padded channels of a ragged last
// block, the vectorized channel lanes.
#pragma once

#include <string>

#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"

namespace tf::ops {

enum class NchwcEpilogue { None, Bias, BiasRelu, BiasAdd, BiasAddRelu, BiasClip };

inline bool has_bias(NchwcEpilogue e) { return e != NchwcEpilogue::None; }
inline bool has_residual(NchwcEpilogue e) { return e == NchwcEpilogue::BiasAdd || e == NchwcEpilogue::BiasAddRelu; }
inline bool has_relu(NchwcEpilogue e) { return e == NchwcEpilogue::BiasRelu || e == NchwcEpilogue::BiasAddRelu; }
inline bool has_clip(NchwcEpilogue e) { return e == NchwcEpilogue::BiasClip; }

// "relu(conv + bias)" and the like, for an op's description.
std::string describe_epilogue(NchwcEpilogue e, const std::string& conv, const std::string& bias,
                              const std::string& residual);

// The epilogue applied to the convolution's value `v` at blocked output i = (n, kb, y, x, lane):
// bias (k_blocks, b) and residual (output layout) are read there. When the last block is ragged
// (k % b != 0) its padded lanes are set to zero, whatever the padded weights held.
ir::Expr apply_nchwc_epilogue(NchwcEpilogue e, ir::Expr v, const te::Tensor& bias, const te::Tensor& residual,
                              const te::Indices& i, int64_t k, int64_t b);

// The op's output (n, k_blocks, oh, ow, b): the epilogue as a stage of its own over `conv` when
// there is something to apply (a bias, or a ragged last block's lanes to zero), else `conv` itself.
te::Tensor nchwc_output(NchwcEpilogue e, const te::Tensor& conv, const te::Tensor& bias, const te::Tensor& residual,
                        int64_t k, int64_t b);

// The channel lanes of a blocked tensor's last axis as vectors of the target: one (possibly
// partial) vector when the block fits one, else unrolled full vectors.
void vectorize_lanes(schedule::Stage& st, const ir::IterVar& lanes_axis, int64_t block, int64_t target_lanes);

}  // namespace tf::ops

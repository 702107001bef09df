// What the float and the integer depthwise templates (depthwise_nchwc.cc, qdepthwise_nchwc.cc)
// share: the per-tap sum, the config space and the schedule of the register tile, which do not
// depend on what the lanes hold.
#pragma once

#include "compiler/codegen/target.h"
#include "compiler/ops/nchwc_schedule.h"
#include "compiler/ops/nchwc_shape.h"
#include "compiler/schedule/schedule.h"
#include "compiler/space/config_space.h"

namespace tf::ops {

// conv[n, ko, y, x, l]: the sum over the taps of input x weight (output channel o reading input
// channel o / multiplier), both widened to `accumulate` where they are narrower (uint8 and int8
// bytes to int32 lanes).
te::Tensor depthwise_tap_sum(const DepthwiseNchwcShape& sh, const NchwcInput& input, const te::Tensor& weight,
                             ir::DataType accumulate);

space::ConfigSpace depthwise_nchwc_space(const DepthwiseNchwcShape& sh, const codegen::Target& t);

// `conv` (the per-tap sum over `input`) computed in `out`'s micro-kernel tiles, as the config says.
void schedule_depthwise_nchwc(schedule::Schedule& sch, const te::Tensor& conv, const te::Tensor& out,
                              const NchwcInput& input, const DepthwiseNchwcShape& sh, const space::Config& cfg,
                              const codegen::Target& t);

}  // namespace tf::ops

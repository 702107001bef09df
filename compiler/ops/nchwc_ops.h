// The blocked-layout operator families register_conv2d_nchwc_operators (registry.h) adds with the
// dense NCHWc convolutions.
#pragma once

#include "compiler/ops/registry.h"

namespace tf::ops {

void register_depthwise_nchwc_operators(Registry& r);  // depthwise_nchwc and its epilogues
// layout_to_nchwc, layout_from_nchwc, layout_reblock_nchwc, pack_conv_weight
void register_layout_operators(Registry& r);
void register_conv2d_winograd_operators(Registry& r);   // conv2d_winograd_nchwc and its epilogues (winograd.h)
void register_qconv2d_nchwc_operators(Registry& r);     // qconv2d_nchwc(_centered)(_relu): uint8 x int8, requantized
void register_qdepthwise_nchwc_operators(Registry& r);  // qdepthwise_nchwc(_relu): the same, per channel

}  // namespace tf::ops

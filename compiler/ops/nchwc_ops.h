// The blocked-layout operator families register_conv2d_nchwc_operators (registry.h) adds with the
// dense NCHWc convolutions.
#pragma once

#include "compiler/ops/registry.h"

namespace tf::ops {

void register_depthwise_nchwc_operators(Registry& r);  // depthwise_nchwc and its epilogues
void register_layout_operators(
    Registry& r);  // layout_to_nchwc, layout_from_nchwc, layout_reblock_nchwc, pack_conv_weight
void register_conv2d_winograd_operators(Registry& r);
void register_qconv2d_nchwc_operators(Registry& r);  // qconv2d_nchwc(_relu): uint8 x int8, requantized  //
                                                     // conv2d_winograd_nchwc and its epilogues (winograd.h)

}  // namespace tf::ops

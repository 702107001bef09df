// oneDNN's deconvolution (a transposed convolution) as conv2d_transpose's peer, timed with the
// protocol of peers.h.
#pragma once

#include "bench/peers.h"
#include "compiler/ops/conv2d_transpose_shape.h"

namespace tf::bench {

// Forward-inference deconvolution of NCHW input with ONNX's weight [c, k/group, r, s] (oneDNN's
// iohw / giohw), no bias, layouts chosen by oneDNN (format_tag::any) and reordered into once
// before timing, as time_onednn_conv2d does. Output padding is passed as a smaller right pad.
// The output is checked against conv2d_transpose_reference. Throws std::runtime_error naming the
// shape when oneDNN refuses it.
OnednnConvTiming time_onednn_deconv2d(const ops::Conv2dTransposeShape& shape, int threads, double min_ms, int repeat);

}  // namespace tf::bench

// What Conv, ConvTranspose and the pooling ops share: the window attributes (kernel_shape, strides,
// dilations, pads, auto_pad, output_padding), checked before shapes are known, a 1-D window run as
// a 2-D one over a unit height, and the attributes written out in full once shapes are known. 3-D
// windows (rank-5 NCDHW inputs) run as they are: conv3d, conv3d_transpose, max_pool3d, avg_pool3d.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tf::graph::window {

// The kernels differ in what they take: conv2d and pool2d one stride (and conv2d one dilation) for
// both axes, conv2d_transpose one per axis.
enum class Kind { Conv, Pool, ConvTranspose };

// Attribute values no kernel honours (4-D windows, unequal 2-D conv strides, negative pads, an
// unknown auto_pad...).
std::optional<std::string> check(const Node& n, Kind kind);

// The nodes that run `n`: a 2-D or 3-D node alone after `normalize_2d`; a 1-D one (input [N,C,L]) as the
// same op over [N,C,1,L] between Reshapes (of the input, of a weight, of the output back), its
// attributes made 2-D with a unit first axis, and then `normalize_2d`. Inputs of other ranks are
// refused by name.
std::vector<Node> as_2d(Graph& g, Node n, Kind kind, const std::function<void(Graph&, Node&)>& normalize_2d);

// kernel_shape as the weight `w` has it (its extents after the first two), refusing an attribute
// that says otherwise, and group (default 1): what Conv and ConvTranspose write out alike. Returns
// the kernel's extents.
std::vector<int64_t> normalize_kernel_and_group(Node& n, const Value& w);

// Every default written out on a 2-D or 3-D Conv or pool: strides, dilations, pads (the begins of
// each axis, then the ends), and for Conv kernel_shape (from the weight) and group; auto_pad
// resolved into pads.
void normalize(Graph& g, Node& n);

// A 3-D window's extents as conv3d and the 3-D pools name them: n, c, d, h, w from the input
// [N, C, D, H, W], kd, kh, kw, stride_*, dilation_*, pad_front..pad_right (pads as ONNX orders them).
std::map<std::string, int64_t> named_3d(const Shape& x, const std::vector<int64_t>& kernel,
                                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                                        const std::vector<int64_t>& pads);

}  // namespace tf::graph::window

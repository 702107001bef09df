// What Conv, ConvTranspose and the pooling ops share: the window attributes (kernel_shape, strides,
// dilations, pads, auto_pad, output_padding), checked before shapes are known, a 1-D window run as
// a 2-D one over a unit height, and the attributes written out in full once shapes are known.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tf::graph::window {

// The kernels differ in what they take: conv2d and pool2d one stride (and conv2d one dilation) for
// both axes, conv2d_transpose one per axis.
enum class Kind { Conv, Pool, ConvTranspose };

// Attribute values no kernel honours (3-D windows, unequal conv strides, negative pads, an unknown
// auto_pad...).
std::optional<std::string> check(const Node& n, Kind kind);

// The nodes that run `n`: a 2-D node alone after `normalize_2d`; a 1-D one (input [N,C,L]) as the
// same op over [N,C,1,L] between Reshapes (of the input, of a weight, of the output back), its
// attributes made 2-D with a unit first axis, and then `normalize_2d`. Inputs of other ranks are
// refused by name.
std::vector<Node> as_2d(Graph& g, Node n, Kind kind, const std::function<void(Graph&, Node&)>& normalize_2d);

// Every default written out on a 2-D Conv or pool: strides, dilations, pads (top, left, bottom,
// right), and for Conv kernel_shape (from the weight) and group; auto_pad resolved into pads.
void normalize(Graph& g, Node& n);

}  // namespace tf::graph::window

// What Conv and the pooling ops share: the window attributes (kernel_shape, strides, dilations,
// pads, auto_pad), checked before shapes are known and written out in full once they are.
#pragma once

#include <optional>
#include <string>

#include "graph/graph.h"

namespace tf::graph::window {

// Attribute values no kernel honours (1-D or 3-D windows, unequal conv strides, negative pads...).
std::optional<std::string> check(const Node& n);
// Every default written out: strides, dilations, pads (top, left, bottom, right), and for Conv
// kernel_shape (from the weight) and group; auto_pad resolved into pads.
void normalize(Graph& g, Node& n);

}  // namespace tf::graph::window

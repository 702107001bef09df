// What every 2-D convolution's extents begin with (conv2d with its blocked and fused forms, and
// conv2d_transpose): an NCHW input, k output channels and an r x s kernel, first in the positional
// and the named forms alike. Each shape adds its own stride, dilation, groups and pads.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tf::ops {

class NamedExtents;

struct Conv2dExtents {
  int64_t n = 1;         // batch
  int64_t c = 0;         // input channels
  int64_t h = 0, w = 0;  // input height and width
  int64_t k = 0;         // output channels
  int64_t r = 0, s = 0;  // kernel height and width

  // From a shape's named extents: n defaults to 1; c, h, w, k, r and s are required.
  void read_extents(const NamedExtents& e);
  // The seven by name, as check_positive_extents (window_extents.h) takes them.
  std::vector<std::pair<const char*, int64_t>> extent_fields() const;
  // "n=1,c=64,h=56,w=56,k=64,r=3,s=3"
  std::string extents_text() const;
};

}  // namespace tf::ops

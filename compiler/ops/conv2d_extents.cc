#include "compiler/ops/conv2d_extents.h"

#include <optional>

#include "compiler/ops/window_extents.h"

namespace tf::ops {

void Conv2dExtents::read_extents(const NamedExtents& e) {
  n = e.get("n", 1);
  c = e.get("c", std::nullopt);
  h = e.get("h", std::nullopt);
  w = e.get("w", std::nullopt);
  k = e.get("k", std::nullopt);
  r = e.get("r", std::nullopt);
  s = e.get("s", std::nullopt);
}

std::vector<std::pair<const char*, int64_t>> Conv2dExtents::extent_fields() const {
  return {{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"k", k}, {"r", r}, {"s", s}};
}

std::string Conv2dExtents::extents_text() const {
  return "n=" + std::to_string(n) + ",c=" + std::to_string(c) + ",h=" + std::to_string(h) + ",w=" + std::to_string(w) +
         ",k=" + std::to_string(k) + ",r=" + std::to_string(r) + ",s=" + std::to_string(s);
}

}  // namespace tf::ops

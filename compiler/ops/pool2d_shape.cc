#include "compiler/ops/pool2d_shape.h"

#include <algorithm>
#include <optional>

#include "compiler/error.h"
#include "compiler/ops/window_extents.h"

namespace tf::ops {

std::vector<std::string> Pool2dShape::names(bool with_count) {
  std::vector<std::string> n = {"n",      "c",       "h",        "w",          "r",        "s",
                                "stride", "pad_top", "pad_left", "pad_bottom", "pad_right"};
  if (with_count) n.push_back("count_include_pad");
  return n;
}

Pool2dShape Pool2dShape::from_vector(const std::vector<int64_t>& v, bool with_count) {
  if (v.size() != names(with_count).size())
    throw CompileError("pool2d takes " + std::to_string(names(with_count).size()) + " extents");
  Pool2dShape p;
  p.n = v[0], p.c = v[1], p.h = v[2], p.w = v[3], p.r = v[4], p.s = v[5], p.stride = v[6];
  p.pad_top = v[7], p.pad_left = v[8], p.pad_bottom = v[9], p.pad_right = v[10];
  if (with_count) p.count_include_pad = v[11];
  return p;
}

std::vector<int64_t> Pool2dShape::to_vector(bool with_count) const {
  std::vector<int64_t> v = {n, c, h, w, r, s, stride, pad_top, pad_left, pad_bottom, pad_right};
  if (with_count) v.push_back(count_include_pad);
  return v;
}

Pool2dShape Pool2dShape::from_named(const std::map<std::string, int64_t>& named, bool with_count,
                                    const std::string& op) {
  std::vector<std::string> known = names(with_count);
  known.push_back("pad");
  const NamedExtents e(named, known, op, "n=1,c=64,h=112,w=112,r=3,s=3,stride=2,pad=1");
  Pool2dShape p;
  p.n = e.get("n", 1);
  p.c = e.get("c", std::nullopt);
  p.h = e.get("h", std::nullopt);
  p.w = e.get("w", std::nullopt);
  p.r = e.get("r", std::nullopt);
  p.s = e.get("s", std::nullopt);
  p.stride = e.get("stride", 1);
  const NamedExtents::Pads pads = e.pads();
  p.pad_top = pads.top, p.pad_left = pads.left, p.pad_bottom = pads.bottom, p.pad_right = pads.right;
  if (with_count) p.count_include_pad = e.get("count_include_pad", 0);
  return p;
}

void Pool2dShape::check(const std::string& op, bool with_count) const {
  const FailField fail = shape_field_failure(op, named(with_count));
  check_positive_extents({{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"r", r}, {"s", s}, {"stride", stride}}, fail);
  check_pads({{"pad_top", pad_top}, {"pad_left", pad_left}, {"pad_bottom", pad_bottom}, {"pad_right", pad_right}},
             std::nullopt, fail);
  // A window that could sit on padding alone has no input to pool (max of nothing).
  if (pad_top >= r || pad_bottom >= r)
    fail(pad_top >= r ? "pad_top" : "pad_bottom", "must be smaller than the window height r = " + std::to_string(r));
  if (pad_left >= s || pad_right >= s)
    fail(pad_left >= s ? "pad_left" : "pad_right", "must be smaller than the window width s = " + std::to_string(s));
  if (r > h + pad_top + pad_bottom)
    fail("r", "= " + std::to_string(r) + " is taller than the padded input (" +
                  std::to_string(h + pad_top + pad_bottom) + ")");
  if (s > w + pad_left + pad_right)
    fail("s", "= " + std::to_string(s) + " is wider than the padded input (" +
                  std::to_string(w + pad_left + pad_right) + ")");
  if (with_count && count_include_pad != 0 && count_include_pad != 1) {
    fail("count_include_pad", "= " + std::to_string(count_include_pad) + " must be 0 or 1");
  }
}

std::string Pool2dShape::named(bool with_count) const {
  std::string t = "n=" + std::to_string(n) + ",c=" + std::to_string(c) + ",h=" + std::to_string(h) +
                  ",w=" + std::to_string(w) + ",r=" + std::to_string(r) + ",s=" + std::to_string(s);
  if (stride != 1) t += ",stride=" + std::to_string(stride);
  t += pads_text(pad_top, pad_left, pad_bottom, pad_right);
  if (with_count && count_include_pad) t += ",count_include_pad=1";
  return t;
}

}  // namespace tf::ops

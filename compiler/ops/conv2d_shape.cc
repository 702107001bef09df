#include "compiler/ops/conv2d_shape.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/window_extents.h"

namespace tf::ops {

const std::vector<std::string>& Conv2dShape::names() {
  static const std::vector<std::string> n = {"n",       "c",        "h",          "w",        "k",
                                             "r",       "s",        "stride",     "dilation", "groups",
                                             "pad_top", "pad_left", "pad_bottom", "pad_right"};
  return n;
}

Conv2dShape Conv2dShape::from_vector(const std::vector<int64_t>& v) {
  if (v.size() != names().size()) {
    throw CompileError("conv2d takes " + std::to_string(names().size()) + " extents (" + [] {
      std::string s;
      for (const auto& n : names()) s += (s.empty() ? "" : ",") + n;
      return s;
    }() + "), got " + std::to_string(v.size()));
  }
  Conv2dShape s;
  s.n = v[0], s.c = v[1], s.h = v[2], s.w = v[3], s.k = v[4], s.r = v[5], s.s = v[6];
  s.stride = v[7], s.dilation = v[8], s.groups = v[9];
  s.pad_top = v[10], s.pad_left = v[11], s.pad_bottom = v[12], s.pad_right = v[13];
  return s;
}

std::vector<int64_t> Conv2dShape::to_vector() const {
  return {n, c, h, w, k, r, s, stride, dilation, groups, pad_top, pad_left, pad_bottom, pad_right};
}

Conv2dShape Conv2dShape::from_named(const std::map<std::string, int64_t>& named) {
  static const std::vector<std::string> known = {"n",   "c",       "h",        "w",          "k",
                                                 "r",   "s",       "stride",   "dilation",   "groups",
                                                 "pad", "pad_top", "pad_left", "pad_bottom", "pad_right"};
  const NamedExtents e(named, known, "conv2d", "n=1,c=64,h=56,w=56,k=64,r=3,s=3,stride=1,pad=1");
  Conv2dShape s;
  s.read_extents(e);
  s.stride = e.get("stride", 1);
  s.dilation = e.get("dilation", 1);
  s.groups = e.get("groups", 1);
  const NamedExtents::Pads pads = e.pads();
  s.pad_top = pads.top, s.pad_left = pads.left, s.pad_bottom = pads.bottom, s.pad_right = pads.right;
  return s;
}

void Conv2dShape::check(const std::string& op) const {
  const FailField fail = shape_field_failure(op, named());
  ExtentFields positive = extent_fields();
  positive.insert(positive.end(), {{"stride", stride}, {"dilation", dilation}, {"groups", groups}});
  check_positive_extents(positive, fail);
  check_pads({{"pad_top", pad_top}, {"pad_left", pad_left}, {"pad_bottom", pad_bottom}, {"pad_right", pad_right}},
             int64_t{1} << 16, fail);
  check_groups(groups, "groups", c, k, fail);
  if (dilation * (r - 1) + 1 > h + pad_top + pad_bottom) {
    fail("r", "= " + std::to_string(r) + " (dilation " + std::to_string(dilation) +
                  ") is taller than the padded input (" + std::to_string(h + pad_top + pad_bottom) + ")");
  }
  if (dilation * (s - 1) + 1 > w + pad_left + pad_right) {
    fail("s", "= " + std::to_string(s) + " (dilation " + std::to_string(dilation) +
                  ") is wider than the padded input (" + std::to_string(w + pad_left + pad_right) + ")");
  }
}

std::string Conv2dShape::named() const {
  std::string t = extents_text();
  if (stride != 1) t += ",stride=" + std::to_string(stride);
  if (dilation != 1) t += ",dilation=" + std::to_string(dilation);
  if (groups != 1) t += ",groups=" + std::to_string(groups);
  return t + pads_text(pad_top, pad_left, pad_bottom, pad_right);
}

void conv2d_reference(const Conv2dShape& sh, const float* input, const float* weight, const Conv2dEpilogue& ep,
                      std::vector<float>* output, std::vector<float>* tolerance) {
  const int64_t OH = sh.oh(), OW = sh.ow(), CG = sh.c_per_group(), KG = sh.k_per_group();
  const size_t total = static_cast<size_t>(sh.n * sh.k * OH * OW);
  output->assign(total, 0.0f);
  tolerance->assign(total, 0.0f);
  // The products, the bias and the residual summed in any order; a wrong kernel misses by whole
  // products.
  const double gamma = summation_bound(static_cast<double>(CG * sh.r * sh.s + 1));
  for (int64_t b = 0; b < sh.n; ++b) {
    for (int64_t oc = 0; oc < sh.k; ++oc) {
      const int64_t g = oc / KG;
      for (int64_t y = 0; y < OH; ++y) {
        for (int64_t x = 0; x < OW; ++x) {
          double acc = 0, mag = 0;
          for (int64_t ic = 0; ic < CG; ++ic) {
            const int64_t c = g * CG + ic;
            for (int64_t ky = 0; ky < sh.r; ++ky) {
              const int64_t iy = y * sh.stride + ky * sh.dilation - sh.pad_top;
              if (iy < 0 || iy >= sh.h) continue;
              for (int64_t kx = 0; kx < sh.s; ++kx) {
                const int64_t ix = x * sh.stride + kx * sh.dilation - sh.pad_left;
                if (ix < 0 || ix >= sh.w) continue;
                const double p = static_cast<double>(input[((b * sh.c + c) * sh.h + iy) * sh.w + ix]) *
                                 weight[((oc * CG + ic) * sh.r + ky) * sh.s + kx];
                acc += p;
                mag += std::fabs(p);
              }
            }
          }
          const size_t at = static_cast<size_t>(((b * sh.k + oc) * OH + y) * OW + x);
          if (ep.bias) {
            acc += ep.bias[oc];
            mag += std::fabs(ep.bias[oc]);
          }
          if (ep.residual) {
            acc += ep.residual[at];
            mag += std::fabs(ep.residual[at]);
          }
          if (ep.relu || ep.clip6) acc = std::max(acc, 0.0);
          if (ep.clip6) acc = std::min(acc, 6.0);
          (*output)[at] = static_cast<float>(acc);
          (*tolerance)[at] = static_cast<float>(gamma * mag + 4 * kUnitRoundoff * std::fabs(acc) + 1e-30);
        }
      }
    }
  }
}

}  // namespace tf::ops

#include "compiler/ops/conv2d_transpose_shape.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/window_extents.h"

namespace tf::ops {

const std::vector<std::string>& Conv2dTransposeShape::names() {
  // clang-format off
  static const std::vector<std::string> n = {"n",          "c",          "h",          "w",       "k",
                                             "r",          "s",          "group",      "stride_h", "stride_w",
                                             "dilation_h", "dilation_w", "pad_top",    "pad_left", "pad_bottom",
                                             "pad_right",  "output_padding_h", "output_padding_w"};
  // clang-format on
  return n;
}

Conv2dTransposeShape Conv2dTransposeShape::from_vector(const std::vector<int64_t>& v) {
  if (v.size() != names().size()) {
    throw CompileError("conv2d_transpose takes " + std::to_string(names().size()) + " extents, got " +
                       std::to_string(v.size()));
  }
  Conv2dTransposeShape s;
  s.n = v[0], s.c = v[1], s.h = v[2], s.w = v[3], s.k = v[4], s.r = v[5], s.s = v[6], s.group = v[7];
  s.stride_h = v[8], s.stride_w = v[9], s.dilation_h = v[10], s.dilation_w = v[11];
  s.pad_top = v[12], s.pad_left = v[13], s.pad_bottom = v[14], s.pad_right = v[15];
  s.output_padding_h = v[16], s.output_padding_w = v[17];
  return s;
}

std::vector<int64_t> Conv2dTransposeShape::to_vector() const {
  return {n,
          c,
          h,
          w,
          k,
          r,
          s,
          group,
          stride_h,
          stride_w,
          dilation_h,
          dilation_w,
          pad_top,
          pad_left,
          pad_bottom,
          pad_right,
          output_padding_h,
          output_padding_w};
}

Conv2dTransposeShape Conv2dTransposeShape::from_named(const std::map<std::string, int64_t>& named) {
  std::vector<std::string> known = names();
  for (const char* shorthand : {"stride", "dilation", "pad", "output_padding"}) known.push_back(shorthand);
  const NamedExtents e(named, known, "conv2d_transpose", "c=256,h=16,w=16,k=256,r=2,s=2,stride=2");
  Conv2dTransposeShape s;
  s.read_extents(e);
  s.group = e.get("group", 1);
  const int64_t stride = e.get("stride", 1), dilation = e.get("dilation", 1),
                output_padding = e.get("output_padding", 0);
  s.stride_h = e.get("stride_h", stride);
  s.stride_w = e.get("stride_w", stride);
  s.dilation_h = e.get("dilation_h", dilation);
  s.dilation_w = e.get("dilation_w", dilation);
  const NamedExtents::Pads pads = e.pads();
  s.pad_top = pads.top, s.pad_left = pads.left, s.pad_bottom = pads.bottom, s.pad_right = pads.right;
  s.output_padding_h = e.get("output_padding_h", output_padding);
  s.output_padding_w = e.get("output_padding_w", output_padding);
  return s;
}

void Conv2dTransposeShape::check(const std::string& op) const {
  const FailField fail = shape_field_failure(op, named());
  ExtentFields positive = extent_fields();
  positive.insert(positive.end(), {{"group", group},
                                   {"stride_h", stride_h},
                                   {"stride_w", stride_w},
                                   {"dilation_h", dilation_h},
                                   {"dilation_w", dilation_w}});
  check_positive_extents(positive, fail);
  // Pads may be negative: an output_shape larger than the natural one resolves to them.
  const int64_t limit = int64_t{1} << 16;
  for (const auto& [field, value] : ExtentFields{
           {"pad_top", pad_top}, {"pad_left", pad_left}, {"pad_bottom", pad_bottom}, {"pad_right", pad_right}}) {
    if (value < -limit || value > limit) fail(field, "= " + std::to_string(value) + " is absurdly large");
  }
  check_pads({{"output_padding_h", output_padding_h}, {"output_padding_w", output_padding_w}}, limit, fail);
  check_groups(group, "group", c, k, fail);
  if (oh() <= 0) fail("pad_top", "and pad_bottom leave no output rows (oh = " + std::to_string(oh()) + ")");
  if (ow() <= 0) fail("pad_left", "and pad_right leave no output columns (ow = " + std::to_string(ow()) + ")");
  if (oh() > (int64_t{1} << 24) || ow() > (int64_t{1} << 24)) fail("stride_h", "makes an absurdly large output");
}

std::string Conv2dTransposeShape::named() const {
  auto pair = [](const std::string& name, int64_t a, int64_t b, int64_t fallback) -> std::string {
    if (a == b) return a == fallback ? "" : "," + name + "=" + std::to_string(a);
    return "," + name + "_h=" + std::to_string(a) + "," + name + "_w=" + std::to_string(b);
  };
  std::string t = extents_text();
  if (group != 1) t += ",group=" + std::to_string(group);
  t += pair("stride", stride_h, stride_w, 1) + pair("dilation", dilation_h, dilation_w, 1);
  t += pads_text(pad_top, pad_left, pad_bottom, pad_right);
  return t + pair("output_padding", output_padding_h, output_padding_w, 0);
}

void conv2d_transpose_reference(const Conv2dTransposeShape& sh, const float* input, const float* weight,
                                const float* bias, std::vector<float>* output, std::vector<float>* tolerance) {
  const int64_t OH = sh.oh(), OW = sh.ow(), CG = sh.c_per_group(), KG = sh.k_per_group();
  const size_t total = static_cast<size_t>(sh.n * sh.k * OH * OW);
  std::vector<double> acc(total, 0.0), mag(total, 0.0);
  // Scattered: every input pixel adds its products to the outputs its taps reach.
  for (int64_t b = 0; b < sh.n; ++b) {
    for (int64_t ci = 0; ci < sh.c; ++ci) {
      const int64_t g = ci / CG;
      for (int64_t iy = 0; iy < sh.h; ++iy) {
        for (int64_t ix = 0; ix < sh.w; ++ix) {
          const double x = input[((b * sh.c + ci) * sh.h + iy) * sh.w + ix];
          for (int64_t oc = g * KG; oc < (g + 1) * KG; ++oc) {
            for (int64_t ky = 0; ky < sh.r; ++ky) {
              const int64_t oy = iy * sh.stride_h + ky * sh.dilation_h - sh.pad_top;
              if (oy < 0 || oy >= OH) continue;
              for (int64_t kx = 0; kx < sh.s; ++kx) {
                const int64_t ox = ix * sh.stride_w + kx * sh.dilation_w - sh.pad_left;
                if (ox < 0 || ox >= OW) continue;
                const double p = x * weight[((ci * KG + (oc - g * KG)) * sh.r + ky) * sh.s + kx];
                const size_t at = static_cast<size_t>(((b * sh.k + oc) * OH + oy) * OW + ox);
                acc[at] += p;
                mag[at] += std::fabs(p);
              }
            }
          }
        }
      }
    }
  }
  output->assign(total, 0.0f);
  tolerance->assign(total, 0.0f);
  // An output sums at most CG * ceil(r / stride_h) * ceil(s / stride_w) products (dilation 1);
  // the whole window bounds it for any dilation.
  const double gamma = summation_bound(static_cast<double>(CG * sh.r * sh.s + 1));
  for (size_t at = 0; at < total; ++at) {
    double v = acc[at], m = mag[at];
    if (bias) {
      const double bv = bias[(at / static_cast<size_t>(OH * OW)) % static_cast<size_t>(sh.k)];
      v += bv;
      m += std::fabs(bv);
    }
    (*output)[at] = static_cast<float>(v);
    (*tolerance)[at] = static_cast<float>(gamma * m + 4 * kUnitRoundoff * std::fabs(v) + 1e-30);
  }
}

}  // namespace tf::ops

#include "compiler/ops/conv3d_shape.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {

const std::vector<std::string>& Conv3dShape::names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v = {"n", "c"};
    for (const auto& x : window3d_in_names()) v.push_back(x);
    v.push_back("k");
    for (const auto& x : window3d_kernel_names()) v.push_back(x);
    v.push_back("groups");
    for (const auto& x : window3d_rest_names()) v.push_back(x);
    return v;
  }();
  return n;
}

Conv3dShape Conv3dShape::from_vector(const std::vector<int64_t>& v) {
  if (v.size() != names().size()) {
    throw CompileError("conv3d takes " + std::to_string(names().size()) + " extents, got " + std::to_string(v.size()));
  }
  Conv3dShape s;
  s.n = v[0], s.c = v[1], s.k = v[5], s.groups = v[9];
  s.ax = window3d_from_vector(v, 2, 6, 10);
  return s;
}

std::vector<int64_t> Conv3dShape::to_vector() const {
  std::vector<int64_t> v = {n, c};
  for (int64_t x : window3d_in(ax)) v.push_back(x);
  v.push_back(k);
  for (int64_t x : window3d_kernel(ax)) v.push_back(x);
  v.push_back(groups);
  for (int64_t x : window3d_rest(ax)) v.push_back(x);
  return v;
}

Conv3dShape Conv3dShape::from_named(const std::map<std::string, int64_t>& named) {
  std::vector<std::string> known = names();
  for (const auto& x : window3d_shorthands()) known.push_back(x);
  return from_extents(NamedExtents(named, known, "conv3d", "n=1,c=16,d=8,h=28,w=28,k=32,kd=3,kh=3,kw=3,pad=1"));
}

Conv3dShape Conv3dShape::from_extents(const NamedExtents& e) {
  Conv3dShape s;
  s.n = e.get("n", 1);
  s.c = e.get("c", std::nullopt);
  s.k = e.get("k", std::nullopt);
  s.groups = e.get("groups", 1);
  s.ax = window3d_from_named(e);
  return s;
}

bool Conv3dShape::padded() const {
  return std::any_of(ax.begin(), ax.end(), [](const WindowAxis& a) { return a.pad_begin || a.pad_end; });
}

int64_t Conv3dShape::flops() const {
  int64_t f = 2 * n * k * c_per_group();
  for (const auto& a : ax) f *= a.out() * a.kernel;
  return f;
}

void Conv3dShape::check(const std::string& op) const {
  const FailField fail = shape_field_failure(op, named());
  check_positive_extents({{"n", n}, {"c", c}, {"k", k}, {"groups", groups}}, fail);
  check_window3d(ax, fail);
  check_groups(groups, "groups", c, k, fail);
}

std::string Conv3dShape::named() const {
  std::string t = "n=" + std::to_string(n) + ",c=" + std::to_string(c) + window3d_in_text(ax) +
                  ",k=" + std::to_string(k) + window3d_kernel_text(ax);
  if (groups != 1) t += ",groups=" + std::to_string(groups);
  return t + window3d_rest_text(ax);
}

void conv3d_reference(const Conv3dShape& sh, const float* input, const float* weight, const float* bias, bool relu,
                      std::vector<float>* output, std::vector<float>* tolerance) {
  const auto out = sh.output_shape();
  const int64_t CG = sh.c_per_group(), KG = sh.k_per_group();
  const WindowAxis &az = sh.ax[0], &ay = sh.ax[1], &ax = sh.ax[2];
  output->assign(static_cast<size_t>(sh.n * sh.k * out[2] * out[3] * out[4]), 0.0f);
  tolerance->assign(output->size(), 0.0f);
  // The products and the bias summed in any order.
  const double gamma = summation_bound(static_cast<double>(CG * az.kernel * ay.kernel * ax.kernel));
  size_t at = 0;
  for (int64_t b = 0; b < sh.n; ++b) {
    for (int64_t oc = 0; oc < sh.k; ++oc) {
      const int64_t g = oc / KG;
      for (int64_t z = 0; z < out[2]; ++z) {
        for (int64_t y = 0; y < out[3]; ++y) {
          for (int64_t x = 0; x < out[4]; ++x, ++at) {
            double acc = bias ? bias[oc] : 0.0, mag = std::fabs(acc);
            for (int64_t ic = 0; ic < CG; ++ic) {
              for (int64_t kz = 0; kz < az.kernel; ++kz) {
                const int64_t iz = z * az.stride + kz * az.dilation - az.pad_begin;
                if (iz < 0 || iz >= az.in) continue;
                for (int64_t ky = 0; ky < ay.kernel; ++ky) {
                  const int64_t iy = y * ay.stride + ky * ay.dilation - ay.pad_begin;
                  if (iy < 0 || iy >= ay.in) continue;
                  for (int64_t kx = 0; kx < ax.kernel; ++kx) {
                    const int64_t ix = x * ax.stride + kx * ax.dilation - ax.pad_begin;
                    if (ix < 0 || ix >= ax.in) continue;
                    const int64_t c = g * CG + ic;
                    const double p =
                        static_cast<double>(input[(((b * sh.c + c) * az.in + iz) * ay.in + iy) * ax.in + ix]) *
                        weight[(((oc * CG + ic) * az.kernel + kz) * ay.kernel + ky) * ax.kernel + kx];
                    acc += p;
                    mag += std::fabs(p);
                  }
                }
              }
            }
            if (relu) acc = std::max(acc, 0.0);
            (*output)[at] = static_cast<float>(acc);
            (*tolerance)[at] = static_cast<float>(gamma * mag + 4 * kUnitRoundoff * std::fabs(acc) + 1e-30);
          }
        }
      }
    }
  }
}

}  // namespace tf::ops

#include "compiler/ops/winograd.h"

#include <algorithm>
#include <cmath>

#include "compiler/error.h"

namespace tf::ops {
namespace {

using Matrix = std::vector<std::vector<double>>;

// The coefficients (lowest power first) of prod (x - a) over `roots`.
std::vector<double> poly_from_roots(const std::vector<double>& roots) {
  std::vector<double> p = {1.0};
  for (double a : roots) {
    std::vector<double> next(p.size() + 1, 0.0);
    for (size_t i = 0; i < p.size(); ++i) {
      next[i + 1] += p[i];
      next[i] -= a * p[i];
    }
    p = next;
  }
  return p;
}

// Toom-Cook: evaluate the data polynomial (A^T's columns) and the filter (G's rows) at each point,
// multiply pointwise, interpolate back (B^T's rows: the Lagrange numerators; their denominators go
// into G, so B^T and A^T stay dyadic). Rows with a negative denominator are negated in G and B^T
// both, which leaves their product alone and keeps G's entries positive where they can be.
WinogradMatrices make_matrices(int64_t m, const std::vector<double>& points) {
  constexpr int64_t r = 3;
  WinogradMatrices w;
  w.m = m;
  w.alpha = m + r - 1;
  w.points = points;
  const size_t n = points.size();  // alpha - 1: the last point is infinity
  const size_t alpha = static_cast<size_t>(w.alpha);
  w.at.assign(static_cast<size_t>(m), std::vector<double>(alpha, 0.0));
  w.g.assign(alpha, std::vector<double>(r, 0.0));
  w.bt.assign(alpha, std::vector<double>(alpha, 0.0));
  for (size_t j = 0; j < n; ++j) {
    std::vector<double> others;
    double denominator = 1.0;
    for (size_t l = 0; l < n; ++l) {
      if (l == j) continue;
      others.push_back(points[l]);
      denominator *= points[j] - points[l];
    }
    const double sign = denominator < 0 ? -1.0 : 1.0;
    const std::vector<double> numerator = poly_from_roots(others);
    for (size_t i = 0; i < alpha; ++i) w.bt[j][i] = i < numerator.size() ? sign * numerator[i] : 0.0;
    for (size_t k = 0; k < static_cast<size_t>(r); ++k)
      w.g[j][k] = sign * std::pow(points[j], static_cast<double>(k)) / denominator;
    for (size_t i = 0; i < static_cast<size_t>(m); ++i) w.at[i][j] = std::pow(points[j], static_cast<double>(i));
  }
  const std::vector<double> all = poly_from_roots(points);
  for (size_t i = 0; i < alpha; ++i) w.bt[n][i] = all[i];
  w.g[n][r - 1] = 1.0;
  w.at[static_cast<size_t>(m - 1)][n] = 1.0;
  return w;
}

int64_t weight_index(const Conv2dNchwcShape& sh, int64_t alpha, int64_t a, int64_t b, int64_t o, int64_t i) {
  const int64_t kb = sh.k_blocks(), cb = sh.c_blocks();
  return ((((a * alpha + b) * kb + o / sh.ob) * cb + i / sh.ib) * sh.ib + i % sh.ib) * sh.ob + o % sh.ob;
}

}  // namespace

const std::vector<std::string>& Conv2dWinogradShape::names() {
  static const std::vector<std::string> n = [] {
    auto v = Conv2dNchwcShape::names();
    v.push_back("m");
    return v;
  }();
  return n;
}

Conv2dWinogradShape Conv2dWinogradShape::from_vector(const std::vector<int64_t>& v) {
  const size_t count = names().size();
  if (v.size() != count) {
    throw CompileError("conv2d_winograd_nchwc takes " + std::to_string(count) +
                       " extents (conv2d_nchwc's and m), got " + std::to_string(v.size()));
  }
  Conv2dWinogradShape s;
  static_cast<Conv2dNchwcShape&>(s) = Conv2dNchwcShape::from_vector(std::vector<int64_t>(v.begin(), v.end() - 1));
  s.m = v.back();
  return s;
}

std::vector<int64_t> Conv2dWinogradShape::to_vector() const {
  auto v = Conv2dNchwcShape::to_vector();
  v.push_back(m);
  return v;
}

Conv2dWinogradShape Conv2dWinogradShape::from_named(const std::map<std::string, int64_t>& named) {
  auto rest = named;
  Conv2dWinogradShape s;
  auto it = rest.find("m");
  if (it != rest.end()) {
    s.m = it->second;
    rest.erase(it);
  }
  static_cast<Conv2dNchwcShape&>(s) = Conv2dNchwcShape::from_named(rest);
  return s;
}

void Conv2dWinogradShape::check(const std::string& op) const {
  Conv2dNchwcShape::check(op);
  auto refuse = [&](const std::string& field, int64_t v, const std::string& need) {
    throw CompileError(op + " shape " + named() + ": " + field + " = " + std::to_string(v) + " is not supported (" +
                       need + ")");
  };
  const std::string only =
      "Winograd F(m x m, 3 x 3) takes 3x3 kernels at stride 1, dilation 1; other layers are conv2d_nchwc";
  if (conv.r != 3) refuse("r", conv.r, only);
  if (conv.s != 3) refuse("s", conv.s, only);
  if (conv.stride != 1) refuse("stride", conv.stride, only);
  if (conv.dilation != 1) refuse("dilation", conv.dilation, only);
  if (m != 2 && m != 4 && m != 6) refuse("m", m, "the output tile m is 2, 4 or 6");
}

std::string Conv2dWinogradShape::named() const { return Conv2dNchwcShape::named() + ",m=" + std::to_string(m); }

const WinogradMatrices& winograd_matrices(int64_t m) {
  static const WinogradMatrices f2 = make_matrices(2, {0, 1, -1});
  static const WinogradMatrices f4 = make_matrices(4, {0, 1, -1, 2, -2});
  static const WinogradMatrices f6 = make_matrices(6, {0, 1, -1, 2, -2, 0.5, -0.5});
  switch (m) {
    case 2: return f2;
    case 4: return f4;
    case 6: return f6;
    default:
      throw CompileError("winograd: m = " + std::to_string(m) + " is not supported (the output tile m is 2, 4 or 6)");
  }
}

std::vector<int64_t> winograd_weight_shape(const Conv2dNchwcShape& sh, int64_t m) {
  const int64_t alpha = winograd_matrices(m).alpha;
  return {alpha, alpha, sh.k_blocks(), sh.c_blocks(), sh.ib, sh.ob};
}

std::vector<float> winograd_weight_transform(const float* oihw_weight, const Conv2dNchwcShape& sh, int64_t m) {
  const WinogradMatrices& w = winograd_matrices(m);
  const Conv2dShape& c = sh.conv;
  if (c.r != 3 || c.s != 3) {
    throw CompileError("winograd_weight_transform: the kernel is " + std::to_string(c.r) + "x" + std::to_string(c.s) +
                       ", Winograd F(m x m, 3 x 3) takes 3x3");
  }
  const int64_t alpha = w.alpha;
  std::vector<float> u(static_cast<size_t>(alpha * alpha * sh.k_blocks() * sh.c_blocks() * sh.ib * sh.ob), 0.0f);
  for (int64_t o = 0; o < c.k; ++o) {
    for (int64_t i = 0; i < c.c; ++i) {
      const float* g = oihw_weight + (o * c.c + i) * 9;
      // G g (alpha x 3), then (G g) G^T.
      double gg[8][3];
      for (int64_t a = 0; a < alpha; ++a) {
        for (int q = 0; q < 3; ++q) {
          double s = 0;
          for (int p = 0; p < 3; ++p) s += w.g[a][p] * g[p * 3 + q];
          gg[a][q] = s;
        }
      }
      for (int64_t a = 0; a < alpha; ++a) {
        for (int64_t b = 0; b < alpha; ++b) {
          double s = 0;
          for (int q = 0; q < 3; ++q) s += gg[a][q] * w.g[b][q];
          u[static_cast<size_t>(weight_index(sh, alpha, a, b, o, i))] = static_cast<float>(s);
        }
      }
    }
  }
  return u;
}

void conv2d_winograd_reference(const Conv2dWinogradShape& sh, const float* data, const float* u, const float* bias,
                               const float* residual, bool relu, bool clip6, std::vector<float>* output,
                               std::vector<float>* tolerance) {
  const WinogradMatrices& w = winograd_matrices(sh.m);
  const Conv2dShape& c = sh.conv;
  const int64_t alpha = w.alpha, m = sh.m, oh = c.oh(), ow = c.ow(), a2 = alpha * alpha;
  const int64_t cb = sh.c_blocks(), kb = sh.k_blocks();
  output->assign(static_cast<size_t>(c.n * kb * oh * ow * sh.ob), 0.0f);
  tolerance->assign(output->size(), 0.0f);
  const double u_round = std::ldexp(1.0, -24);
  const double terms = static_cast<double>(c.c + 4 * alpha + 4);
  const double gamma = terms * u_round / (1 - terms * u_round);

  // Y = T^T X T for one alpha x alpha X (T^T: rows x alpha), on values and on magnitudes.
  auto sandwich = [](const std::vector<std::vector<double>>& tt, const double* x, int64_t al, bool absolute,
                     double* y) {
    const int64_t rows = static_cast<int64_t>(tt.size());
    std::vector<double> half(static_cast<size_t>(rows * al));
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t q = 0; q < al; ++q) {
        double s = 0;
        for (int64_t p = 0; p < al; ++p) s += (absolute ? std::fabs(tt[i][p]) : tt[i][p]) * x[p * al + q];
        half[i * al + q] = s;
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < rows; ++j) {
        double s = 0;
        for (int64_t q = 0; q < al; ++q) s += half[i * al + q] * (absolute ? std::fabs(tt[j][q]) : tt[j][q]);
        y[i * rows + j] = s;
      }
    }
  };

  std::vector<double> v(static_cast<size_t>(c.c * a2)), vmag(v.size()), d(static_cast<size_t>(a2)), dmag(d.size());
  std::vector<double> acc(static_cast<size_t>(a2)), mag(acc.size()), y(static_cast<size_t>(m * m)), ymag(y.size());
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t ty = 0; ty < sh.tiles_h(); ++ty) {
      for (int64_t tx = 0; tx < sh.tiles_w(); ++tx) {
        for (int64_t ch = 0; ch < c.c; ++ch) {
          for (int64_t p = 0; p < alpha; ++p) {
            for (int64_t q = 0; q < alpha; ++q) {
              const int64_t iy = ty * m + p - c.pad_top, ix = tx * m + q - c.pad_left;
              const bool inside = iy >= 0 && iy < c.h && ix >= 0 && ix < c.w;
              const double x =
                  inside ? data[(((n * cb + ch / sh.ib) * c.h + iy) * c.w + ix) * sh.ib + ch % sh.ib] : 0.0;
              d[p * alpha + q] = x;
              dmag[p * alpha + q] = std::fabs(x);
            }
          }
          sandwich(w.bt, d.data(), alpha, false, &v[ch * a2]);
          sandwich(w.bt, dmag.data(), alpha, true, &vmag[ch * a2]);
        }
        for (int64_t o = 0; o < c.k; ++o) {
          std::fill(acc.begin(), acc.end(), 0.0);
          std::fill(mag.begin(), mag.end(), 0.0);
          for (int64_t ch = 0; ch < c.c; ++ch) {
            for (int64_t a = 0; a < alpha; ++a) {
              for (int64_t b = 0; b < alpha; ++b) {
                const double uw = u[weight_index(sh, alpha, a, b, o, ch)];
                acc[a * alpha + b] += uw * v[ch * a2 + a * alpha + b];
                mag[a * alpha + b] += std::fabs(uw) * vmag[ch * a2 + a * alpha + b];
              }
            }
          }
          sandwich(w.at, acc.data(), alpha, false, y.data());
          sandwich(w.at, mag.data(), alpha, true, ymag.data());
          for (int64_t i = 0; i < m && ty * m + i < oh; ++i) {
            for (int64_t j = 0; j < m && tx * m + j < ow; ++j) {
              const int64_t at = (((n * kb + o / sh.ob) * oh + ty * m + i) * ow + tx * m + j) * sh.ob + o % sh.ob;
              double value = y[i * m + j], bound = ymag[i * m + j];
              if (bias) {
                value += bias[o];  // blocked (ceil(k/ob), ob) is o's flat index
                bound += std::fabs(bias[o]);
              }
              if (residual) {
                value += residual[at];
                bound += std::fabs(residual[at]);
              }
              if (relu || clip6) value = std::max(value, 0.0);
              if (clip6) value = std::min(value, 6.0);
              (*output)[at] = static_cast<float>(value);
              (*tolerance)[at] = static_cast<float>(gamma * bound + 4 * u_round * std::fabs(value) + 1e-30);
            }
          }
        }
      }
    }
  }
}

}  // namespace tf::ops

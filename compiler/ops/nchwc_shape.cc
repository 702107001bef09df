#include "compiler/ops/nchwc_shape.h"

#include "compiler/error.h"

namespace tf::ops {
namespace {

std::vector<std::string> with_names(std::vector<std::string> names, const std::vector<std::string>& extra) {
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

// Takes the named block extents out of `named` (what is left is a plain conv2d shape).
int64_t take(std::map<std::string, int64_t>& named, const std::string& name, int64_t fallback) {
  auto it = named.find(name);
  if (it == named.end()) return fallback;
  const int64_t v = it->second;
  named.erase(it);
  return v;
}

void check_block(const std::string& op, const std::string& shape, const std::string& field, int64_t v) {
  if (v < 1 || v > 64) {
    throw CompileError(op + " shape " + shape + ": " + field + " = " + std::to_string(v) +
                       " must be in 1..64 (a block of channels)");
  }
}

// The reference's per-element bound for a padded output channel: it must be exactly zero.
void block_result(const std::vector<float>& plain_out, const std::vector<float>& plain_tol, int64_t n, int64_t k,
                  int64_t pixels, int64_t b, std::vector<float>* output, std::vector<float>* tolerance) {
  *output = activation_to_blocked(plain_out.data(), n, k, pixels, b);
  *tolerance = activation_to_blocked(plain_tol.data(), n, k, pixels, b);
}

}  // namespace

const std::vector<std::string>& Conv2dNchwcShape::names() {
  static const std::vector<std::string> n = with_names(Conv2dShape::names(), {"ib", "ob"});
  return n;
}

Conv2dNchwcShape Conv2dNchwcShape::from_vector(const std::vector<int64_t>& v) {
  const size_t plain = Conv2dShape::names().size();
  if (v.size() != plain + 2) {
    throw CompileError("conv2d_nchwc takes " + std::to_string(plain + 2) + " extents (conv2d's and ib, ob), got " +
                       std::to_string(v.size()));
  }
  Conv2dNchwcShape s;
  s.conv = Conv2dShape::from_vector(std::vector<int64_t>(v.begin(), v.begin() + static_cast<long>(plain)));
  s.ib = v[plain];
  s.ob = v[plain + 1];
  return s;
}

std::vector<int64_t> Conv2dNchwcShape::to_vector() const {
  auto v = conv.to_vector();
  v.push_back(ib);
  v.push_back(ob);
  return v;
}

Conv2dNchwcShape Conv2dNchwcShape::from_named(const std::map<std::string, int64_t>& named) {
  auto rest = named;
  Conv2dNchwcShape s;
  s.ib = take(rest, "ib", 16);
  s.ob = take(rest, "ob", 16);
  s.conv = Conv2dShape::from_named(rest);
  return s;
}

void Conv2dNchwcShape::check(const std::string& op) const {
  conv.check(op);
  check_block(op, named(), "ib", ib);
  check_block(op, named(), "ob", ob);
  if (conv.groups != 1) {
    throw CompileError(op + " shape " + named() + ": groups = " + std::to_string(conv.groups) +
                       " is not supported (groups = 1; depthwise layers are depthwise_nchwc)");
  }
}

std::string Conv2dNchwcShape::named() const {
  return conv.named() + ",ib=" + std::to_string(ib) + ",ob=" + std::to_string(ob);
}

const std::vector<std::string>& DepthwiseNchwcShape::names() {
  static const std::vector<std::string> n = with_names(Conv2dShape::names(), {"b"});
  return n;
}

DepthwiseNchwcShape DepthwiseNchwcShape::from_vector(const std::vector<int64_t>& v) {
  const size_t plain = Conv2dShape::names().size();
  if (v.size() != plain + 1) {
    throw CompileError("depthwise_nchwc takes " + std::to_string(plain + 1) + " extents (conv2d's and b), got " +
                       std::to_string(v.size()));
  }
  DepthwiseNchwcShape s;
  s.conv = Conv2dShape::from_vector(std::vector<int64_t>(v.begin(), v.begin() + static_cast<long>(plain)));
  s.b = v[plain];
  return s;
}

std::vector<int64_t> DepthwiseNchwcShape::to_vector() const {
  auto v = conv.to_vector();
  v.push_back(b);
  return v;
}

DepthwiseNchwcShape DepthwiseNchwcShape::from_named(const std::map<std::string, int64_t>& named) {
  auto rest = named;
  DepthwiseNchwcShape s;
  s.b = take(rest, "b", 16);
  if (!rest.count("groups") && rest.count("c")) rest["groups"] = rest.at("c");
  s.conv = Conv2dShape::from_named(rest);
  return s;
}

void DepthwiseNchwcShape::check(const std::string& op) const {
  conv.check(op);
  check_block(op, named(), "b", b);
  if (conv.groups != conv.c) {
    throw CompileError(op + " shape " + named() + ": groups = " + std::to_string(conv.groups) +
                       " must equal c = " + std::to_string(conv.c) + " (a depthwise convolution)");
  }
  if (conv.k != conv.c && conv.k != 2 * conv.c) {
    throw CompileError(op + " shape " + named() + ": k = " + std::to_string(conv.k) +
                       " must be c or 2 x c (channel multiplier 1 or 2)");
  }
}

std::string DepthwiseNchwcShape::named() const { return conv.named() + ",b=" + std::to_string(b); }

std::vector<float> activation_to_blocked(const float* plain, int64_t n, int64_t c, int64_t pixels, int64_t b) {
  const int64_t cb = ceil_div(c, b);
  std::vector<float> out(static_cast<size_t>(n * cb * pixels * b), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < pixels; ++p) {
        out[static_cast<size_t>(((i * cb + ch / b) * pixels + p) * b + ch % b)] = plain[(i * c + ch) * pixels + p];
      }
    }
  }
  return out;
}

std::vector<float> activation_from_blocked(const float* blocked, int64_t n, int64_t c, int64_t pixels, int64_t b) {
  const int64_t cb = ceil_div(c, b);
  std::vector<float> out(static_cast<size_t>(n * c * pixels));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < pixels; ++p) {
        out[static_cast<size_t>((i * c + ch) * pixels + p)] = blocked[((i * cb + ch / b) * pixels + p) * b + ch % b];
      }
    }
  }
  return out;
}

namespace {
// The packed position of OIHW element (o, i, tap).
size_t packed_at(int64_t o, int64_t i, int64_t tap, int64_t c, int64_t taps, int64_t ib, int64_t ob) {
  const int64_t cb = ceil_div(c, ib);
  return static_cast<size_t>((((o / ob * cb + i / ib) * taps + tap) * ib + i % ib) * ob + o % ob);
}
}  // namespace

std::vector<float> weight_to_packed(const float* oihw, int64_t k, int64_t c, int64_t taps, int64_t ib, int64_t ob) {
  std::vector<float> out(static_cast<size_t>(ceil_div(k, ob) * ceil_div(c, ib) * taps * ib * ob), 0.0f);
  for (int64_t o = 0; o < k; ++o) {
    for (int64_t i = 0; i < c; ++i) {
      for (int64_t t = 0; t < taps; ++t) out[packed_at(o, i, t, c, taps, ib, ob)] = oihw[(o * c + i) * taps + t];
    }
  }
  return out;
}

std::vector<float> weight_from_packed(const float* packed, int64_t k, int64_t c, int64_t taps, int64_t ib, int64_t ob) {
  std::vector<float> out(static_cast<size_t>(k * c * taps));
  for (int64_t o = 0; o < k; ++o) {
    for (int64_t i = 0; i < c; ++i) {
      for (int64_t t = 0; t < taps; ++t)
        out[static_cast<size_t>((o * c + i) * taps + t)] = packed[packed_at(o, i, t, c, taps, ib, ob)];
    }
  }
  return out;
}

void conv2d_nchwc_reference(const Conv2dNchwcShape& sh, const float* data, const float* weight, const float* bias,
                            const float* residual, bool relu, bool clip6, std::vector<float>* output,
                            std::vector<float>* tolerance) {
  const Conv2dShape& c = sh.conv;
  const int64_t out_pixels = c.oh() * c.ow();
  const auto plain_data = activation_from_blocked(data, c.n, c.c, c.h * c.w, sh.ib);
  const auto plain_weight = weight_from_packed(weight, c.k, c.c, c.r * c.s, sh.ib, sh.ob);
  std::vector<float> plain_bias, plain_residual;
  Conv2dEpilogue ep;
  if (bias) {
    plain_bias = activation_from_blocked(bias, 1, c.k, 1, sh.ob);
    ep.bias = plain_bias.data();
  }
  if (residual) {
    plain_residual = activation_from_blocked(residual, c.n, c.k, out_pixels, sh.ob);
    ep.residual = plain_residual.data();
  }
  ep.relu = relu;
  ep.clip6 = clip6;
  std::vector<float> out, tol;
  conv2d_reference(c, plain_data.data(), plain_weight.data(), ep, &out, &tol);
  block_result(out, tol, c.n, c.k, out_pixels, sh.ob, output, tolerance);
}

void depthwise_nchwc_reference(const DepthwiseNchwcShape& sh, const float* data, const float* weight, const float* bias,
                               bool relu, bool clip6, std::vector<float>* output, std::vector<float>* tolerance) {
  const Conv2dShape& c = sh.conv;
  const auto plain_data = activation_from_blocked(data, c.n, c.c, c.h * c.w, sh.b);
  // (ceil(k/b), r, s, b) holds the same numbers as a blocked activation of k channels over r*s
  // "pixels", which is OIHW (k, 1, r, s) once unblocked.
  const auto plain_weight = activation_from_blocked(weight, 1, c.k, c.r * c.s, sh.b);
  std::vector<float> plain_bias;
  Conv2dEpilogue ep;
  if (bias) {
    plain_bias = activation_from_blocked(bias, 1, c.k, 1, sh.b);
    ep.bias = plain_bias.data();
  }
  ep.relu = relu;
  ep.clip6 = clip6;
  std::vector<float> out, tol;
  conv2d_reference(c, plain_data.data(), plain_weight.data(), ep, &out, &tol);
  block_result(out, tol, c.n, c.k, c.oh() * c.ow(), sh.b, output, tolerance);
}

}  // namespace tf::ops

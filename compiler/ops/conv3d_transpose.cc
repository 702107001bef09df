// conv3d_transpose (ONNX ConvTranspose on NCDHW) with weight [c, k/groups, kd, kh, kw], a stride,
// dilation, pads and output_padding per axis, groups and an optional bias. Input element i of an
// axis reaches output i * stride + j * dilation - pad_begin through tap j; read the other way, the
// output is a stride-1 correlation with the flipped kernel over the input spread out: stride - 1
// zeros between its elements and (kernel - 1) * dilation - pad_begin of them in front. That spread
// copy is one stage, made first; the correlation is conv3d's register tile (conv3d_tile.h), so no
// divisibility test runs in the tile. It does (stride^3 times) more multiplications than the
// polyphase form conv2d_transpose uses, the price of sharing conv3d's tile.
#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/error.h"
#include "compiler/ops/conv3d_shape.h"
#include "compiler/ops/conv3d_tile.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/window_axes3d.h"

namespace tf::ops {
namespace {

using ir::Expr;
using te::Tensor;

constexpr const char* kOutputPadding[3] = {"output_padding_d", "output_padding_h", "output_padding_w"};

// Its extents are conv3d's (the same names, positions and defaults), then the output padding.
struct Conv3dTransposeShape {
  int64_t n = 1, c = 0, k = 0, groups = 1;
  WindowAxes3d ax;  // pads may be negative: an output beyond the natural one
  std::array<int64_t, 3> output_padding{};

  Conv3dTransposeShape(const Conv3dShape& conv, const std::array<int64_t, 3>& output_padding)
      : n(conv.n), c(conv.c), k(conv.k), groups(conv.groups), ax(conv.ax), output_padding(output_padding) {}
  Conv3dShape conv3d_extents() const { return {n, c, k, groups, ax}; }

  static const std::vector<std::string>& names() {
    static const std::vector<std::string> v = [] {
      std::vector<std::string> n = Conv3dShape::names();
      n.insert(n.end(), std::begin(kOutputPadding), std::end(kOutputPadding));
      return n;
    }();
    return v;
  }
  static Conv3dTransposeShape from_vector(const std::vector<int64_t>& v) {
    if (v.size() != names().size())
      throw CompileError("conv3d_transpose takes " + std::to_string(names().size()) + " extents, got " +
                         std::to_string(v.size()));
    return {Conv3dShape::from_vector({v.begin(), v.end() - 3}), {v[v.size() - 3], v[v.size() - 2], v.back()}};
  }
  std::vector<int64_t> to_vector() const {
    std::vector<int64_t> v = conv3d_extents().to_vector();
    v.insert(v.end(), output_padding.begin(), output_padding.end());
    return v;
  }
  static Conv3dTransposeShape from_named(const std::map<std::string, int64_t>& named) {
    std::vector<std::string> known = names();
    for (const auto& x : window3d_shorthands()) known.push_back(x);
    known.push_back("output_padding");
    const NamedExtents e(named, known, "conv3d_transpose", "c=32,d=4,h=14,w=14,k=16,kd=2,kh=2,kw=2,stride=2");
    const int64_t op = e.get("output_padding", 0);
    std::array<int64_t, 3> output_padding{};
    for (int a = 0; a < 3; ++a) output_padding[a] = e.get(kOutputPadding[a], op);
    return {Conv3dShape::from_extents(e), output_padding};
  }

  int64_t c_per_group() const { return c / groups; }
  int64_t k_per_group() const { return k / groups; }
  int64_t out(int a) const {
    return (ax[a].in - 1) * ax[a].stride + output_padding[a] + (ax[a].kernel - 1) * ax[a].dilation + 1 -
           ax[a].pad_begin - ax[a].pad_end;
  }
  // Zeros in front of the spread input: the flipped kernel's first tap meets output 0 there.
  int64_t front(int a) const { return (ax[a].kernel - 1) * ax[a].dilation - ax[a].pad_begin; }
  std::vector<int64_t> input_shape() const { return {n, c, ax[0].in, ax[1].in, ax[2].in}; }
  std::vector<int64_t> weight_shape() const { return {c, k_per_group(), ax[0].kernel, ax[1].kernel, ax[2].kernel}; }
  std::vector<int64_t> output_shape() const { return {n, k, out(0), out(1), out(2)}; }
  // The products ONNX's definition does (every input element by every tap), not the spread form's.
  int64_t flops() const {
    return 2 * n * k * c_per_group() * ax[0].in * ax[1].in * ax[2].in * ax[0].kernel * ax[1].kernel * ax[2].kernel;
  }

  std::string named() const {
    std::string t = conv3d_extents().named();
    for (int a = 0; a < 3; ++a) {
      if (output_padding[a]) t += "," + std::string(kOutputPadding[a]) + "=" + std::to_string(output_padding[a]);
    }
    return t;
  }
  void check(const std::string& op) const {
    const FailField fail = shape_field_failure(op, named());
    check_positive_extents({{"n", n}, {"c", c}, {"k", k}, {"groups", groups}}, fail);
    check_groups(groups, "groups", c, k, fail);
    const char* begin[3] = {"pad_front", "pad_top", "pad_left"};
    const char* end[3] = {"pad_back", "pad_bottom", "pad_right"};
    for (int a = 0; a < 3; ++a) {
      const std::string in = window3d_in_names()[a], kernel = window3d_kernel_names()[a];
      const std::string stride = "stride_" + in, dilation = "dilation_" + in;
      check_positive_extents({{in.c_str(), ax[a].in},
                              {kernel.c_str(), ax[a].kernel},
                              {stride.c_str(), ax[a].stride},
                              {dilation.c_str(), ax[a].dilation}},
                             fail);
      for (const auto& [field, v] : {std::pair{begin[a], ax[a].pad_begin}, std::pair{end[a], ax[a].pad_end}}) {
        if (std::abs(v) > (int64_t{1} << 16)) fail(field, "= " + std::to_string(v) + " is absurdly large");
      }
      if (output_padding[a] < 0 || output_padding[a] >= std::max(ax[a].stride, ax[a].dilation)) {
        fail(kOutputPadding[a],
             "= " + std::to_string(output_padding[a]) + " must be at least 0 and below the stride or the dilation");
      }
      if (out(a) <= 0) fail(end[a], "leaves no output along " + in + " (" + std::to_string(out(a)) + ")");
    }
  }
};

class Conv3dTranspose : public Operator {
 public:
  Conv3dTranspose(std::string name, bool bias) : name_(std::move(name)), bias_(bias) {}

  std::string name() const override { return name_; }
  std::string description() const override {
    return std::string("out[N,K,OD,OH,OW] = conv_transpose(data[N,C,D,H,W], weight[C,K/groups,KD,KH,KW])") +
           (bias_ ? " + bias[K]" : "");
  }
  std::vector<std::string> shape_names() const override { return Conv3dTransposeShape::names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Conv3dTransposeShape::from_named(named).to_vector();
  }
  void check_shape(const std::vector<int64_t>& s) const override { shape(s).check(name_); }
  std::string shape_text(const std::vector<int64_t>& s) const override { return shape(s).named(); }
  int64_t flops(const std::vector<int64_t>& s) const override { return shape(s).flops(); }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const Conv3dTransposeShape sh = shape(s);
    std::vector<std::vector<int64_t>> in = {sh.input_shape(), sh.weight_shape()};
    if (bias_) in.push_back({sh.k});
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return shape(s).output_shape(); }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    const Conv3dTransposeShape sh = shape(s);
    return conv3d_tile_space(sh.k, sh.out(2), t);
  }
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override;

 private:
  static Conv3dTransposeShape shape(const std::vector<int64_t>& s) { return Conv3dTransposeShape::from_vector(s); }
  std::string name_;
  bool bias_;
};

Scheduled Conv3dTranspose::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                    const codegen::Target& t) const {
  const Conv3dTransposeShape sh = shape(s);
  const auto& ax = sh.ax;
  const auto f32 = ir::DataType::float32();
  Conv3dTile tile;
  tile.out_shape = sh.output_shape();
  tile.groups = sh.groups, tile.c_per_group = sh.c_per_group(), tile.k_per_group = sh.k_per_group();
  for (int a = 0; a < 3; ++a) tile.kernel[a] = ax[a].kernel, tile.stride[a] = 1, tile.dilation[a] = ax[a].dilation;
  tile.data = te::placeholder(sh.input_shape(), f32, "data");
  tile.weight = te::placeholder(sh.weight_shape(), f32, "weight");
  if (bias_) tile.bias = te::placeholder({sh.k}, f32, "bias");
  const Tensor data = tile.data, weight = tile.weight;
  std::vector<int64_t> spread_shape = {sh.n, sh.c};
  for (int a = 0; a < 3; ++a) spread_shape.push_back(sh.out(a) + (ax[a].kernel - 1) * ax[a].dilation);
  tile.source = te::compute(
      spread_shape,
      [&](const te::Indices& i) {
        Expr inside;
        std::vector<Expr> at = {i[0], i[1]};
        for (int a = 0; a < 3; ++a) {
          Expr q = i[2 + a] - Expr(sh.front(a));
          Expr on = ir::logical_and(q >= Expr(int64_t{0}), q < Expr(ax[a].in * ax[a].stride));
          if (ax[a].stride > 1) on = ir::logical_and(on, ir::floormod(q, Expr(ax[a].stride)) == Expr(int64_t{0}));
          inside = inside.get() ? ir::logical_and(inside, on) : on;
          at.push_back(ir::min(ir::max(ir::floordiv(q, Expr(ax[a].stride)), Expr(int64_t{0})), Expr(ax[a].in - 1)));
        }
        return ir::make_select(inside, data(at), Expr(0.0f));
      },
      "data.spread", {"n", "c", "z", "y", "x"});
  const int64_t KG = sh.k_per_group(), CG = sh.c_per_group(), groups = sh.groups;
  const std::array<int64_t, 3> last = {ax[0].kernel - 1, ax[1].kernel - 1, ax[2].kernel - 1};
  tile.weight_at = [weight, KG, CG, groups, last](Expr k, Expr c, Expr kz, Expr ky, Expr kx) {
    Expr ic = groups > 1 ? ir::floordiv(k, Expr(KG)) * Expr(CG) + c : c;
    Expr ok = groups > 1 ? ir::floormod(k, Expr(KG)) : k;
    return weight(ic, ok, Expr(last[0]) - kz, Expr(last[1]) - ky, Expr(last[2]) - kx);
  };
  return schedule_conv3d_tile(tile, cfg, t);
}

// ONNX's definition as a scatter: input (i, tap j) adds x * w to output i * stride + j * dilation
// - pad_begin along each axis.
void Conv3dTranspose::reference(const std::vector<int64_t>& s, const std::vector<const float*>& in,
                                std::vector<float>* out, std::vector<float>* tol) const {
  const Conv3dTransposeShape sh = shape(s);
  const auto o = sh.output_shape();
  const auto& ax = sh.ax;
  const int64_t CG = sh.c_per_group(), KG = sh.k_per_group(), plane = o[2] * o[3] * o[4];
  std::vector<double> acc(static_cast<size_t>(sh.n * sh.k * plane), 0.0), mag(acc.size(), 0.0);
  for (int64_t b = 0; b < sh.n; ++b)
    for (int64_t c = 0; c < sh.c; ++c)
      for (int64_t iz = 0; iz < ax[0].in; ++iz)
        for (int64_t iy = 0; iy < ax[1].in; ++iy)
          for (int64_t ix = 0; ix < ax[2].in; ++ix) {
            const double x = in[0][(((b * sh.c + c) * ax[0].in + iz) * ax[1].in + iy) * ax[2].in + ix];
            for (int64_t kk = 0; kk < KG; ++kk)
              for (int64_t jz = 0; jz < ax[0].kernel; ++jz)
                for (int64_t jy = 0; jy < ax[1].kernel; ++jy)
                  for (int64_t jx = 0; jx < ax[2].kernel; ++jx) {
                    const int64_t z = iz * ax[0].stride + jz * ax[0].dilation - ax[0].pad_begin;
                    const int64_t y = iy * ax[1].stride + jy * ax[1].dilation - ax[1].pad_begin;
                    const int64_t xo = ix * ax[2].stride + jx * ax[2].dilation - ax[2].pad_begin;
                    if (z < 0 || z >= o[2] || y < 0 || y >= o[3] || xo < 0 || xo >= o[4]) continue;
                    const double p =
                        x * in[1][(((c * KG + kk) * ax[0].kernel + jz) * ax[1].kernel + jy) * ax[2].kernel + jx];
                    const size_t at =
                        static_cast<size_t>((b * sh.k + (c / CG) * KG + kk) * plane + (z * o[3] + y) * o[4] + xo);
                    acc[at] += p;
                    mag[at] += std::fabs(p);
                  }
          }
  const double gamma = summation_bound(static_cast<double>(CG * ax[0].kernel * ax[1].kernel * ax[2].kernel));
  out->assign(acc.size(), 0.0f);
  tol->assign(acc.size(), 0.0f);
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t k = static_cast<int64_t>(i) / plane % sh.k;
    const double v = acc[i] + (bias_ ? in[2][k] : 0.0), m = mag[i] + (bias_ ? std::fabs(in[2][k]) : 0.0);
    (*out)[i] = static_cast<float>(v);
    (*tol)[i] = static_cast<float>(gamma * m + 4 * kUnitRoundoff * std::fabs(v) + 1e-30);
  }
}

}  // namespace

void register_conv3d_transpose_operators(Registry& r) {
  r.add(std::make_unique<Conv3dTranspose>("conv3d_transpose", false));
  r.add(std::make_unique<Conv3dTranspose>("conv3d_transpose_bias", true));
}

}  // namespace tf::ops

// max_pool2d_nchwc and avg_pool2d_nchwc: the pools of max_pool2d / avg_pool2d on the blocked layout
// the convolutions around them keep (data (n, C/b, h, w, b), output (n, C/b, oh, ow, b)), so a
// CNN's pool runs between two blocked convs without converting to NCHW and back. The b channels of
// a block are the vector: every tap of the window is one contiguous vector load.
//
// max_pool2d_nchwc_u8 pools a quantized model's blocked uint8 activations the same way.
//
// No padded copy: max pooling reads a clamped row and column (a clamped index lands on an input the
// window covers anyway, so the maximum is unchanged); average pooling zeroes what lies outside the
// input by a select and divides by the window or by the inputs it covers, as avg_pool2d does.
// Channels past C in the last block hold finite values (zero where convs wrote them); what the pool
// writes there is never read as a channel.
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/nchwc_epilogue.h"
#include "compiler/ops/nchwc_shape.h"
#include "compiler/ops/pool2d_shape.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;

class Pool2dNchwc : public Operator {
 public:
  explicit Pool2dNchwc(bool is_max, ir::DataType dtype = ir::DataType::float32())
      : max_(is_max), dtype_(dtype), plain_(is_max ? make_max_pool2d() : make_avg_pool2d()) {}

  std::string name() const override { return plain_->name() + "_nchwc" + (dtype_.is_float() ? "" : "_u8"); }
  std::string description() const override {
    return (max_ ? "Y[n,c/b,y,x,b] = max over the r x s window of X[n,c/b,h,w,b]"
                 : "Y[n,c/b,y,x,b] = mean over the r x s window of X[n,c/b,h,w,b]; count_include_pad 1 counts padding");
  }
  std::vector<std::string> shape_names() const override {
    auto names = plain_->shape_names();
    names.push_back("b");
    return names;
  }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    auto rest = named;
    const auto b = rest.find("b");
    const int64_t block = b == rest.end() ? 16 : b->second;
    if (b != rest.end()) rest.erase(b);
    auto s = plain_->shape_from_named(rest);
    s.push_back(block);
    return s;
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    if (s.size() != shape_names().size()) {
      throw CompileError("op '" + name() + "' takes " + std::to_string(shape_names().size()) + " extents, got " +
                         std::to_string(s.size()));
    }
    plain_->check_shape(pool(s));
    if (block(s) < 1 || block(s) > 64)
      throw CompileError("op '" + name() + "' shape " + shape_text(s) + ": b must be in 1..64 (a block of channels)");
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    return plain_->shape_text(pool(s)) + ",b=" + std::to_string(block(s));
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return plain_->flops(pool(s)); }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    const Pool2dShape p = shape(s);
    return {{p.n, ceil_div(p.c, block(s)), p.h, p.w, block(s)}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    const Pool2dShape p = shape(s);
    return {p.n, ceil_div(p.c, block(s)), p.oh(), p.ow(), block(s)};
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    const Pool2dShape p = shape(s);
    space::ConfigSpace cs;
    auto columns = space::capped_choices({1, 2, 4, 8}, p.ow());
    cs.add_knob("ow_tile", columns, space::index_of_choice(columns, 4),
                "output columns per register tile: independent vector chains through the window");
    const bool enough = p.n * ceil_div(p.c, block(s)) * p.oh() * p.ow() * block(s) * p.r * p.s >= (1 << 15);
    cs.add_knob("parallel", {Json(false), Json(true)}, enough ? 1 : 0,
                "share the (batch, channel block, row) loop among threads");
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const Pool2dShape p = shape(s);
    const int64_t b = block(s);
    const std::vector<float> plain_in = activation_from_blocked(in[0], p.n, p.c, p.h * p.w, b);
    std::vector<float> plain_out, plain_tol;
    plain_->reference(pool(s), {plain_in.data()}, &plain_out, &plain_tol);
    *out = activation_to_blocked(plain_out.data(), p.n, p.c, p.oh() * p.ow(), b);
    *tol = activation_to_blocked(plain_tol.data(), p.n, p.c, p.oh() * p.ow(), b);
    // Lanes past C pool whatever the block's padding holds: no channel, so no expectation.
    const int64_t pixels = p.oh() * p.ow(), blocks = ceil_div(p.c, b);
    for (int64_t i = 0; i < p.n * blocks * pixels * b; ++i) {
      if ((i / (pixels * b)) % blocks * b + i % b >= p.c)
        (*tol)[static_cast<size_t>(i)] = std::numeric_limits<float>::infinity();
    }
  }

 private:
  static std::vector<int64_t> pool(const std::vector<int64_t>& s) {
    return std::vector<int64_t>(s.begin(), s.end() - 1);
  }
  static int64_t block(const std::vector<int64_t>& s) { return s.back(); }
  Pool2dShape shape(const std::vector<int64_t>& s) const { return Pool2dShape::from_vector(pool(s), !max_); }

  bool max_;
  ir::DataType dtype_;  // float32, or uint8 (max only)
  std::unique_ptr<Operator> plain_;
};

Scheduled Pool2dNchwc::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                const codegen::Target& t) const {
  const Pool2dShape p = shape(s);
  const int64_t b = block(s), lanes = std::max(1, t.vector_bits / dtype_.bits);  // lanes of this dtype
  const auto f32 = ir::DataType::float32();
  te::Tensor x = te::placeholder(input_shapes(s)[0], dtype_, "X");
  ir::IterVar kr = te::reduce_axis(p.r, "kr"), ks = te::reduce_axis(p.s, "ks");
  auto clamp = [](Expr v, int64_t extent) { return ir::min(ir::max(v, Expr(0)), Expr(extent - 1)); };
  te::Tensor acc = te::compute(output_shape(s),
                               [&](const te::Indices& i) {
                                 Expr row = i[2] * Expr(p.stride) + ir::to_expr(kr->var) - Expr(p.pad_top);
                                 Expr col = i[3] * Expr(p.stride) + ir::to_expr(ks->var) - Expr(p.pad_left);
                                 Expr v = p.padded() ? x(i[0], i[1], clamp(row, p.h), clamp(col, p.w), i[4])
                                                     : x(i[0], i[1], row, col, i[4]);
                                 if (!max_ && p.padded()) {
                                   Expr inside = ir::logical_and(ir::logical_and(row >= Expr(0), row < Expr(p.h)),
                                                                 ir::logical_and(col >= Expr(0), col < Expr(p.w)));
                                   v = ir::make_select(inside, v, Expr(0.0f));
                                 }
                                 return ir::make_reduce(max_ ? ir::ReduceKind::Max : ir::ReduceKind::Sum, v, {kr, ks});
                               },
                               "Y.acc", {"n", "cb", "y", "x", "l"});
  te::Tensor out = te::compute(output_shape(s),
                               [&](const te::Indices& i) {
                                 if (max_) return acc(i);
                                 if (p.count_include_pad || !p.padded())
                                   return acc(i) * Expr(static_cast<float>(1.0 / static_cast<double>(p.r * p.s)));
                                 Expr y0 = i[2] * p.stride - p.pad_top, x0 = i[3] * p.stride - p.pad_left;
                                 Expr rows = ir::min(y0 + p.r, Expr(p.h)) - ir::max(y0, Expr(0));
                                 Expr cols = ir::min(x0 + p.s, Expr(p.w)) - ir::max(x0, Expr(0));
                                 return acc(i) / ir::make_cast(f32, rows * cols);
                               },
                               "Y", {"n", "cb", "y", "x", "l"});

  Scheduled result{std::make_unique<schedule::Schedule>(std::vector<te::Tensor>{out}), {x}, {out}};
  schedule::Schedule& sch = *result.schedule;
  schedule::Stage& o = sch[out];
  auto [x_o, x_i] = o.split(o.axis(3), cfg.get_int("ow_tile"));
  o.unroll(x_i);
  vectorize_lanes(o, o.axis(4), b, lanes);
  if (cfg.get_bool("parallel")) o.parallel(o.fuse(o.fuse(o.axis(0), o.axis(1)), o.axis(2)));
  schedule::Stage& a = sch[acc];
  a.compute_at(o, x_o);
  a.reorder({a.reduce_axis(0), a.reduce_axis(1), a.axis(3), a.axis(4)});
  a.unroll(a.axis(3));
  vectorize_lanes(a, a.axis(4), b, lanes);
  return result;
}

}  // namespace

std::unique_ptr<Operator> make_max_pool2d_nchwc() { return std::make_unique<Pool2dNchwc>(true); }
std::unique_ptr<Operator> make_max_pool2d_nchwc_u8() {
  return std::make_unique<Pool2dNchwc>(true, ir::DataType::uint8());
}
std::unique_ptr<Operator> make_avg_pool2d_nchwc() { return std::make_unique<Pool2dNchwc>(false); }

}  // namespace tf::ops

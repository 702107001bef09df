// global_avg_pool2d_nchwc and global_max_pool2d_nchwc: the global pools of a blocked activation
// (X (n, c/b, h, w, b), as the convolutions before a classifier leave it). The result is written
// plain, Y (n, c, 1, 1): with b dividing c the blocked result (n, c/b, 1, 1, b) is the same bytes,
// so a CNN's head needs no conversion of its last activation back to NCHW. A block's b channels
// are the vector: every pixel is one contiguous load added into one accumulator.
#include <algorithm>
#include <limits>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/nchwc_epilogue.h"
#include "compiler/ops/nchwc_shape.h"

namespace tf::ops {
namespace {

using ir::Expr;

class GlobalPool2dNchwc : public Operator {
 public:
  explicit GlobalPool2dNchwc(bool max) : max_(max), plain_(max ? make_global_max_pool2d() : make_global_avg_pool2d()) {}

  std::string name() const override { return plain_->name() + "_nchwc"; }
  std::string description() const override {
    return std::string("Y[n,c,0,0] = ") + (max_ ? "max" : "mean") +
           " over h, w of X[n,c/b,h,w,b] (blocked in, NCHW out)";
  }
  std::vector<std::string> shape_names() const override { return {"n", "c", "h", "w", "b"}; }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    std::map<std::string, int64_t> with_default = named;
    with_default.emplace("n", 1);
    with_default.emplace("b", 16);
    return Operator::shape_from_named(with_default);
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    return plain_->shape_text(plain(s)) + ",b=" + std::to_string(s[4]);
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape(s);
    const int64_t c = s[1], b = s[4];
    if (b > 64 || c % b != 0) {
      throw CompileError("op '" + name() + "' shape " + shape_text(s) +
                         ": b must divide c and be at most 64 (the blocked result is read as NCHW)");
    }
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return plain_->flops(plain(s)); }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1] / s[4], s[2], s[3], s[4]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], 1, 1}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    space::ConfigSpace cs;
    add_parallel_knob(cs, s[0] * s[1] / s[4], s[0] * s[1] * s[2] * s[3], "share the channel blocks among threads");
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t N = s[0], C = s[1], H = s[2], W = s[3], B = s[4], lanes = std::max(1, t.float32_lanes());
    const auto f32 = ir::DataType::float32();
    te::Tensor x = te::placeholder(input_shapes(s)[0], f32, "X");
    ir::IterVar k = te::reduce_axis(H * W, "k");
    // X(n, cb, 0, k, l) for k up to h*w: a block's plane is h*w contiguous vectors.
    te::Tensor acc = te::compute({N, C / B, B},
                                 [&](const te::Indices& i) {
                                   return ir::make_reduce(max_ ? ir::ReduceKind::Max : ir::ReduceKind::Sum,
                                                          x(i[0], i[1], Expr(0), ir::to_expr(k->var), i[2]), {k});
                                 },
                                 "Y.acc", {"n", "cb", "l"});
    const Expr inv(static_cast<float>(1.0 / static_cast<double>(H * W)));
    te::Tensor y = te::compute({N, C, 1, 1},
                               [&](const te::Indices& i) {
                                 Expr v = acc(i[0], ir::floordiv(i[1], Expr(B)), ir::floormod(i[1], Expr(B)));
                                 return max_ ? v : v * inv;
                               },
                               "Y", {"n", "c", "y", "x"});
    Scheduled result = make_scheduled({x}, y);
    schedule::Schedule& sch = *result.schedule;
    schedule::Stage& o = sch[y];
    auto [blocks, lane] = o.split(o.axis(1), B);
    o.reorder({o.axis(0), blocks, o.axis(2), o.axis(3), lane});
    vectorize_lanes(o, lane, B, lanes);
    ir::IterVar block_loop = blocks;
    if (cfg.get_bool("parallel")) {
      block_loop = o.fuse(o.axis(0), blocks);
      o.parallel(block_loop);
    }
    schedule::Stage& a = sch[acc];
    a.compute_at(o, block_loop);
    a.reorder({a.reduce_axis(0), a.axis(2)});
    vectorize_lanes(a, a.axis(2), B, lanes);
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const std::vector<float> plain_in = activation_from_blocked(in[0], s[0], s[1], s[2] * s[3], s[4]);
    plain_->reference(plain(s), {plain_in.data()}, out, tol);
  }

 private:
  static std::vector<int64_t> plain(const std::vector<int64_t>& s) { return {s[0], s[1], s[2], s[3]}; }

  bool max_;
  std::unique_ptr<Operator> plain_;
};

}  // namespace

std::unique_ptr<Operator> make_global_avg_pool2d_nchwc() { return std::make_unique<GlobalPool2dNchwc>(false); }
std::unique_ptr<Operator> make_global_max_pool2d_nchwc() { return std::make_unique<GlobalPool2dNchwc>(true); }

}  // namespace tf::ops

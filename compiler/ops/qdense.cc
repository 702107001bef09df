// Quantized dense, the integer form of a QDQ model's DequantizeLinear -> MatMul (a constant int8
// weight) [-> Add bias] -> QuantizeLinear (ONNX QLinearMatMul's arithmetic):
//     out[M,N] (uint8) = saturate_u8(round_half_even(float(sum_k A[m,k] * B[k,n] + bias[n]) * scale[n])
//                                    + zero_points[1])
// with A unsigned bytes, B signed bytes prepacked at model build time into panels of P columns that
// hold four consecutive k per lane ([ceil(N/P)][K/4][P][4], zero past N), int32 accumulation, and
// a bias that already holds the quantized bias less a_zero * sum_k B[k,n] (so A's zero point costs
// nothing per element; B's zero point is 0, as ONNX Runtime's quantizer writes weights).
//
// The schedule is the float dense_packed one's (dense.cc): an mr x P register tile of int32
// accumulators over M blocks, with k reduced four at a time innermost inside the tile, outside the
// vector lanes: each step broadcasts four bytes of a row of A against one vector of the panel, which
// passes::fuse_dot_products turns into one vpdpbusd where the target has VNNI (and the AVX2
// multiply-add sequence where it does not). qdense_packed_centered takes A's bytes less 128 and
// B within [-127, 127], its bias holding 128 * sum_k B[k,n] more: half the multiply steps where x86
// has no VNNI (ir::Intrinsic::DotU8S8Centered); pack_dense_weights picks it for such targets.
#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/requantize.h"
#include "compiler/ops/vector_columns.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;
using ir::IterVar;
using te::Tensor;

constexpr int64_t kKPerDot = 4;  // k per dot product

class QDensePacked : public Operator {
 public:
  QDensePacked(std::string name, bool centered) : name_(std::move(name)), centered_(centered) {}
  std::string name() const override { return name_; }
  std::string description() const override {
    return std::string("out[M,N] (uint8) = requantize(") + (centered_ ? "(A - 128)" : "A") + "[M,K] (uint8) * B (int8" +
           (centered_ ? " within [-127, 127]" : "") +
           " panels Bp[ceil(N/P)][K/4][P][4], zero past N) + bias[N] (int32), scale[N], zero_points[2] (int32: A's, "
           "out's))";
  }
  std::vector<std::string> shape_names() const override { return {"M", "N", "K", "P"}; }
  int64_t flops(const std::vector<int64_t>& s) const override { return 2 * s[0] * s[1] * s[2]; }

  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape(s);
    if (s[2] % kKPerDot != 0)
      throw CompileError("op '" + name_ + "': K = " + std::to_string(s[2]) +
                         " must be a multiple of 4 (k is reduced in fours)");
    if (s[3] > 64)
      throw CompileError("op '" + name_ + "': extent P = " + std::to_string(s[3]) + " (panel width) exceeds 64");
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[2]}, b_shape(s), {s[1]}, {s[1]}, {2}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1]}; }

  runtime::FillRange input_range(const std::vector<int64_t>& s, int index, ir::DataType type) const override {
    return requantize_input_range(index, s[2], centered_).value_or(Operator::input_range(s, index, type));
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t M = s[0], N = s[1], K = s[2];
    const float *a = in[0], *b = in[1], *bias = in[2], *scale = in[3];
    const double y_zero = in[4][1];
    out->assign(static_cast<size_t>(M * N), 0.0f);
    // float32 rounds acc + bias (up to 2^31) before the scale: one step either way at a tie.
    tol->assign(out->size(), 1.0f);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += (static_cast<double>(a[m * K + k]) - (centered_ ? kCenteredOffset : 0)) * b[b_index(s, k, n)];
        const double scaled = static_cast<double>(static_cast<float>(acc + bias[n])) * static_cast<double>(scale[n]);
        (*out)[static_cast<size_t>(m * N + n)] =
            static_cast<float>(std::clamp(std::nearbyint(scaled) + y_zero, 0.0, 255.0));
      }
  }

 private:
  static std::vector<int64_t> b_shape(const std::vector<int64_t>& s) {
    return {(s[1] + s[3] - 1) / s[3], s[2] / kKPerDot, s[3], kKPerDot};
  }
  static int64_t b_index(const std::vector<int64_t>& s, int64_t k, int64_t n) {
    const int64_t P = s[3];
    return (((n / P) * (s[2] / kKPerDot) + k / kKPerDot) * P + n % P) * kKPerDot + k % kKPerDot;
  }

  std::string name_;
  bool centered_;
};

space::ConfigSpace QDensePacked::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const int64_t M = s[0], K = s[2], P = s[3];
  const int64_t lanes = std::max(1, t.float32_lanes());  // int32 accumulators per vector
  using space::capped_choices, space::index_of_choice;
  space::ConfigSpace cs;
  // Half the vector registers as accumulators by default, as the float kernel; the rest hold the
  // panel's vectors and the broadcast bytes.
  const int64_t vectors = std::max<int64_t>(1, P / lanes);
  const auto mr = capped_choices({1, 2, 3, 4, 6, 8, 12}, M);
  cs.add_knob("mr", mr, index_of_choice(mr, std::max<int64_t>(1, t.vector_registers / 2 / vectors)),
              "rows of the register tile of int32 accumulators");
  cs.add_knob("nr", {Json(P)}, 0, "columns of the register tile: the width P of B's panels");
  const auto mb = capped_choices({1, 2, 4, 8, 16}, M);
  cs.add_knob("mb", mb, index_of_choice(mb, 16), "register tiles per M cache block");
  cs.add_knob("order", {Json("mn"), Json("nm")}, 0, "order of the cache-block loops over M and N");
  const auto unroll = capped_choices({1, 2, 4}, K / kKPerDot);
  cs.add_knob("unroll_k", unroll, index_of_choice(unroll, 2), "groups of four k unrolled inside a tile");
  cs.add_knob("parallel", {Json(false), Json(true)}, 1, "run the outer tile loops on the thread pool");
  const int64_t default_mr = cs.default_config().get_int("mr");
  cs.limit_product({"mr"}, vectors, std::max(t.vector_registers - vectors - 1, default_mr * vectors),
                   "accumulators that leave registers for the panel's vectors and the broadcast bytes");
  return cs;
}

Scheduled QDensePacked::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                 const codegen::Target& t) const {
  const int64_t M = s[0], N = s[1], K = s[2], P = s[3];
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t mr = cfg.get_int("mr"), mb = cfg.get_int("mb"), unroll_k = cfg.get_int("unroll_k");
  const bool parallel = cfg.get_bool("parallel"), n_outer = cfg.get_string("order") == "nm";
  const auto i32 = ir::DataType::int32();

  Tensor A = te::placeholder({M, K}, ir::DataType::uint8(), "A");
  Tensor B = te::placeholder(b_shape(s), ir::DataType::int8(), "B");
  Tensor bias = te::placeholder({N}, i32, "bias");
  Tensor scale = te::placeholder({N}, ir::DataType::float32(), "scale");
  Tensor zero_points = te::placeholder({2}, i32, "zero_points");

  IterVar rk = te::reduce_axis(K, "k");
  Tensor acc = te::compute({M, N},
                           [&](const te::Indices& i) {
                             Expr k = ir::to_expr(rk->var);
                             Expr a = ir::make_cast(i32, A(i[0], k));
                             if (centered_) a = a - Expr(ir::make_int(kCenteredOffset, i32));
                             Expr b =
                                 ir::make_cast(i32, B(ir::floordiv(i[1], Expr(P)), ir::floordiv(k, Expr(kKPerDot)),
                                                      ir::floormod(i[1], Expr(P)), ir::floormod(k, Expr(kKPerDot))));
                             return te::sum(a * b, {rk});
                           },
                           "acc", {"m", "n"});
  Tensor out = te::compute({M, N},
                           [&](const te::Indices& i) {
                             return requantized_byte(acc(i[0], i[1]) + bias(i[1]), scale(i[1]),
                                                     zero_points(Expr(int64_t{1})), false);
                           },
                           "requantize", {"m", "n"});

  Scheduled result;
  result.inputs = {A, B, bias, scale, zero_points};
  result.outputs = {out};
  result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
  schedule::Schedule& sch = *result.schedule;

  schedule::Stage& w = sch[out];
  auto [m_o, m_i] = w.split(w.axis(0), mr);
  auto [n_o, n_i] = w.split(w.axis(1), P);
  auto [m_oo, m_oi] = w.split(m_o, mb);
  std::vector<IterVar> order = n_outer ? std::vector<IterVar>{n_o, m_oo} : std::vector<IterVar>{m_oo, n_o};
  order.insert(order.end(), {m_oi, m_i, n_i});
  w.reorder(order);
  sch[acc].compute_at(w, m_oi);
  vectorize_columns(w, n_i, lanes);
  w.unroll(m_i);
  if (parallel) w.parallel(w.fuse(order[0], order[1]));

  schedule::Stage& r = sch[acc];
  IterVar rm = r.axis(0), rn = r.axis(1);
  auto [groups, in_group] = r.split(r.reduce_axis(0), kKPerDot);
  auto [groups_o, groups_u] = r.split(groups, unroll_k);
  const int64_t width = vector_width(P, lanes);
  auto [rn_o, rn_i] = r.split(rn, width);
  r.reorder({groups_o, groups_u, rm, rn_o, in_group, rn_i});
  if (unroll_k > 1) r.unroll(groups_u);
  r.unroll(rm);
  r.unroll(rn_o);
  r.unroll(in_group);
  r.vectorize(rn_i);
  return result;
}

}  // namespace

void register_qdense_operators(Registry& r) {
  r.add(std::make_unique<QDensePacked>("qdense_packed", false));
  r.add(std::make_unique<QDensePacked>("qdense_packed_centered", true));
}

}  // namespace tf::ops

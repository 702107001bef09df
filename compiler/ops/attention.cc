// attention: scaled dot-product attention over the heads of Q, K, V as a transformer's projections
// leave them, [B, rows, H, D] (the Reshape of a [B, rows, H*D] dense output, no Transpose):
//   O[b,i,h,:] = sum_t softmax_t(scale * Q[b,i,h,:].K[b,t,h,:] + mask[b,t]) V[b,t,h,:]
// attention_masked adds a mask per key (BERT's [B,1,1,T] padding mask); attention has none. The
// scale is an extent, scale_e9, in units of 1e-9 (batch_matmul's convention: 1/sqrt(64) is
// 125000000), so the workload key stays integer.
//
// One head and a block of query rows at a time, all in cache: K^T of the head packed once (so the
// scores' columns are contiguous vectors), the block's scores as a register-tiled product, its
// softmax (max, exp, sum) over rows still in L1, then probabilities times V with V's head rows
// read in place, divided by the row sums on the way out. No [B,H,S,T] tensor ever reaches memory
// beyond a block, and no Transpose runs before or after.
#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/row_reduction.h"
#include "compiler/ops/vector_columns.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;
using te::Tensor;

class Attention : public Operator {
 public:
  explicit Attention(bool masked) : masked_(masked) {}

  std::string name() const override { return masked_ ? "attention_masked" : "attention"; }
  std::string description() const override {
    return std::string("O[b,i,h,:] = sum_t softmax_t(scale_e9*1e-9 * Q[b,i,h,:].K[b,t,h,:]") +
           (masked_ ? " + mask[b,t]" : "") + ") V[b,t,h,:]";
  }
  std::vector<std::string> shape_names() const override { return {"B", "S", "T", "H", "D", "scale_e9"}; }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    std::map<std::string, int64_t> with_default = named;
    with_default.emplace("scale_e9", kNoScale);
    return Operator::shape_from_named(with_default);
  }
  // The two products' multiply-adds, as batch_matmul counts them (the softmax is not arithmetic a
  // FLOP rate should credit).
  int64_t flops(const std::vector<int64_t>& s) const override { return 4 * s[0] * s[3] * s[1] * s[2] * s[4]; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    std::vector<std::vector<int64_t>> in = {
        {s[0], s[1], s[3], s[4]}, {s[0], s[2], s[3], s[4]}, {s[0], s[2], s[3], s[4]}};
    if (masked_) in.push_back({s[0], s[2]});
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], s[3], s[4]}; }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override;

 private:
  bool masked_;
};

space::ConfigSpace Attention::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const int64_t S = s[1], T = s[2], D = s[4];
  const int64_t lanes = std::max(1, t.float32_lanes());
  using space::capped_choices, space::index_of_choice;
  space::ConfigSpace cs;
  // Defaults of about half the vector registers as accumulators in both products: 4 rows of a
  // 64-wide score tile, and 4 rows of a 64-wide head.
  const auto rb = capped_choices({1, 2, 4, 6, 8}, S);
  const int64_t out_vectors = std::max<int64_t>(1, (D + lanes - 1) / lanes);
  cs.add_knob("rb", rb,
              index_of_choice(rb, std::max<int64_t>(1, std::min<int64_t>(4, t.vector_registers / 2 / out_vectors))),
              "query rows per block: the register tile's rows in both products");
  const auto nr = capped_choices({lanes, 2 * lanes, 4 * lanes, 8 * lanes}, T);
  cs.add_knob("nr", nr, index_of_choice(nr, 4 * lanes), "columns (keys) of the scores' register tile");
  const auto ut = capped_choices({1, 2, 4}, T);
  cs.add_knob("unroll_t", ut, index_of_choice(ut, 2), "unroll depth of the key loop of probabilities x V");
  cs.add_knob("parallel", {Json(false), Json(true)}, flops(s) >= (1 << 20) ? 1 : 0, "run the heads on the thread pool");
  (void)D;
  return cs;
}

Scheduled Attention::schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const {
  const int64_t Bn = s[0], S = s[1], T = s[2], H = s[3], D = s[4];
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t rb = cfg.get_int("rb"), nr = cfg.get_int("nr"), unroll_t = cfg.get_int("unroll_t");
  const bool parallel = cfg.get_bool("parallel");
  const auto f32 = ir::DataType::float32();
  const Expr scale(static_cast<float>(static_cast<double>(s[5]) * 1e-9));

  Tensor Q = te::placeholder({Bn, S, H, D}, f32, "Q");
  Tensor K = te::placeholder({Bn, T, H, D}, f32, "K");
  Tensor V = te::placeholder({Bn, T, H, D}, f32, "V");
  Tensor mask;
  if (masked_) mask = te::placeholder({Bn, T}, f32, "mask");

  Tensor KT = te::compute({Bn, H, D, T}, [&](const te::Indices& i) { return K(i[0], i[3], i[1], i[2]); }, "K.t",
                          {"b", "h", "d", "t"});
  Tensor VH = te::compute({Bn, H, T, D}, [&](const te::Indices& i) { return V(i[0], i[2], i[1], i[3]); }, "V.h",
                          {"b", "h", "t", "d"});
  ir::IterVar d = te::reduce_axis(D, "d");
  Tensor scores = te::compute({Bn, H, S, T},
                              [&](const te::Indices& i) {
                                Expr dv = ir::to_expr(d->var);
                                return te::sum(Q(i[0], i[2], i[1], dv) * KT(i[0], i[1], dv, i[3]), {d});
                              },
                              "scores", {"b", "h", "i", "t"});
  auto logit = [&](const te::Indices& r, Expr t) {
    Expr v = scores(r[0], r[1], r[2], t) * scale;
    return masked_ ? v + mask(r[0], t) : v;
  };
  RowReduction max_r(ir::ReduceKind::Max, {Bn, H, S}, T, lanes, logit, "row_max");
  const Tensor& mx = max_r.result();
  Tensor E = te::compute({Bn, H, S, T},
                         [&](const te::Indices& i) {
                           return ir::exp(logit({i[0], i[1], i[2]}, i[3]) - mx(i[0], i[1], i[2]));
                         },
                         "E", {"b", "h", "i", "t"});
  RowReduction sum_r(
      ir::ReduceKind::Sum, {Bn, H, S}, T, lanes, [&](const te::Indices& r, Expr t) { return E(r[0], r[1], r[2], t); },
      "row_sum");
  const Tensor& sm = sum_r.result();
  ir::IterVar tk = te::reduce_axis(T, "t");
  Tensor acc = te::compute({Bn, H, S, D},
                           [&](const te::Indices& i) {
                             Expr tv = ir::to_expr(tk->var);
                             return te::sum(E(i[0], i[1], i[2], tv) * VH(i[0], i[1], tv, i[3]), {tk});
                           },
                           "O.acc", {"b", "h", "i", "d"});
  Tensor O = te::compute(
      {Bn, S, H, D},
      [&](const te::Indices& i) { return acc(i[0], i[2], i[1], i[3]) * (Expr(1.0f) / sm(i[0], i[2], i[1])); }, "O",
      {"b", "i", "h", "d"});

  std::vector<Tensor> inputs = {Q, K, V};
  if (masked_) inputs.push_back(mask);
  Scheduled result = make_scheduled(inputs, O);
  schedule::Schedule& sch = *result.schedule;
  sch.set_input_order(inputs);

  // The output walks heads, then blocks of rb query rows; everything else happens per block.
  schedule::Stage& o = sch[O];
  auto [io, ii] = o.split(o.axis(1), rb);
  o.reorder({o.axis(0), o.axis(2), io, ii, o.axis(3)});
  const ir::IterVar head = o.fuse(o.axis(0), o.axis(2));
  if (parallel) o.parallel(head);
  vectorize_columns(o, o.axis(3), lanes);

  // Consumers attach before their producers (a stage's readers must already sit inside O).
  schedule::Stage& a = sch[acc];
  a.compute_at(o, io);
  sum_r.compute_at(sch, o, ii);
  schedule::Stage& e = sch[E];
  e.compute_at(o, io);
  max_r.compute_at(sch, e, e.axis(2));
  vectorize_columns(e, e.axis(3), lanes);
  schedule::Stage& sc = sch[scores];
  sc.compute_at(o, io);
  sch[KT].compute_at(o, head);
  sch[VH].compute_at(o, head);

  // Scores: an rb x nr register tile over the keys, d outermost inside it.
  {
    auto [t_o, t_i] = sc.split(sc.axis(3), nr);
    auto [t_v, t_l] = sc.split(t_i, lanes);
    sc.reorder({sc.axis(0), sc.axis(1), t_o, sc.reduce_axis(0), sc.axis(2), t_v, t_l});
    sc.unroll(sc.axis(2));
    sc.unroll(t_v);
    if (lanes > 1) sc.vectorize(t_l);
  }
  // Probabilities x V: an rb x D tile, V's head row a contiguous vector per key.
  {
    auto [t_o, t_i] = a.split(a.reduce_axis(0), unroll_t);
    auto [d_v, d_l] = a.split(a.axis(3), lanes);
    a.reorder({a.axis(0), a.axis(1), t_o, t_i, a.axis(2), d_v, d_l});
    a.unroll(t_i);
    a.unroll(a.axis(2));
    a.unroll(d_v);
    if (lanes > 1) a.vectorize(d_l);
  }
  // K^T of the head: contiguous stores along the keys.
  {
    schedule::Stage& k = sch[KT];
    vectorize_columns(k, k.axis(3), lanes);
    schedule::Stage& v = sch[VH];
    vectorize_columns(v, v.axis(3), lanes);
  }
  return result;
}

void Attention::reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                          std::vector<float>* tol) const {
  const int64_t Bn = s[0], S = s[1], T = s[2], H = s[3], D = s[4];
  const double scale = static_cast<float>(static_cast<double>(s[5]) * 1e-9);
  const double u = kUnitRoundoff, gamma_d = summation_bound(static_cast<double>(D)),
               gamma_t = summation_bound(static_cast<double>(T));
  out->assign(static_cast<size_t>(Bn * S * H * D), 0.0f);
  tol->assign(out->size(), 0.0f);
  auto at = [&](int64_t b, int64_t r, int64_t rows, int64_t h) { return ((b * rows + r) * H + h) * D; };
  std::vector<double> logit(static_cast<size_t>(T)), err(static_cast<size_t>(T)), p(static_cast<size_t>(T));
  for (int64_t b = 0; b < Bn; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < S; ++i) {
        const float* q = in[0] + at(b, i, S, h);
        double mx = -INFINITY, worst = 0;
        for (int64_t t = 0; t < T; ++t) {
          const float* k = in[1] + at(b, t, T, h);
          double dot = 0, mag = 0;
          for (int64_t j = 0; j < D; ++j)
            dot += static_cast<double>(q[j]) * k[j], mag += std::fabs(static_cast<double>(q[j]) * k[j]);
          logit[t] = scale * dot + (masked_ ? in[3][b * T + t] : 0.0);
          // The logit's float32 error: the dot product, the scaling, the mask add.
          err[t] = std::fabs(scale) * (gamma_d * mag + 2 * u * std::fabs(dot)) + 2 * u * std::fabs(logit[t]);
          mx = std::max(mx, logit[t]);
          worst = std::max(worst, err[t]);
        }
        double sum = 0, spread = 0;
        for (int64_t t = 0; t < T; ++t)
          p[t] = std::exp(logit[t] - mx), sum += p[t], spread = std::max(spread, mx - logit[t]);
        // A probability's relative error: its own logit's and the max's error (through exp), the
        // exp itself, and the sum's (every term's error, the summation).
        const double p_rel = 3 * worst + (spread + 8) * u + gamma_t;
        for (int64_t j = 0; j < D; ++j) {
          double o = 0, mag = 0;
          for (int64_t t = 0; t < T; ++t) {
            const double v = in[2][at(b, t, T, h) + j];
            o += p[t] / sum * v;
            mag += p[t] / sum * std::fabs(v);
          }
          const size_t idx = static_cast<size_t>(at(b, i, S, h) + j);
          (*out)[idx] = static_cast<float>(o);
          (*tol)[idx] = static_cast<float>(2 * (mag * (p_rel + gamma_t) + 4 * u * std::fabs(o)) + 1e-37);
        }
      }
    }
  }
}

}  // namespace

std::unique_ptr<Operator> make_attention(bool masked) { return std::make_unique<Attention>(masked); }

}  // namespace tf::ops

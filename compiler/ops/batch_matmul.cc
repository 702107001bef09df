// batch_matmul: C[b,M,N] = scale * sum_k A[b,M,K] * B[b,K,N], and batch_matmul_nt with B given as
// [b,N,K] (attention's Q K^T). The scale is an extent, scale_e9, in units of 1e-9 (1/sqrt(64) =
// 125000000; 1000000000, the named default, means no scaling), so the workload key stays integer.
//
// The schedule is dense's (dense.cc): an mr x nr register tile of accumulators, nr a multiple of
// the vector width, updated by broadcast A values times contiguous B vectors; B optionally packed
// first into [b][N/nr][K][nr] panels (the layout that makes the nt variant's B rows contiguous);
// the batch and the tile rows in parallel.
#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/vector_columns.h"
#include "compiler/space/knob_choices.h"

namespace tf::ops {
namespace {

using ir::Expr;
using te::Tensor;

class BatchMatmul : public Operator {
 public:
  explicit BatchMatmul(bool nt) : nt_(nt) {}

  std::string name() const override { return nt_ ? "batch_matmul_nt" : "batch_matmul"; }
  std::string description() const override {
    return nt_ ? "C[b,M,N] = scale_e9*1e-9 * A[b,M,K] * B[b,N,K]^T" : "C[b,M,N] = scale_e9*1e-9 * A[b,M,K] * B[b,K,N]";
  }
  std::vector<std::string> shape_names() const override { return {"B", "M", "N", "K", "scale_e9"}; }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    std::map<std::string, int64_t> with_default = named;
    with_default.emplace("scale_e9", kNoScale);
    return Operator::shape_from_named(with_default);
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    std::string t = "B=" + std::to_string(s[0]) + ",M=" + std::to_string(s[1]) + ",N=" + std::to_string(s[2]) +
                    ",K=" + std::to_string(s[3]);
    if (s[4] != kNoScale) t += ",scale_e9=" + std::to_string(s[4]);
    return t;
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return 2 * s[0] * s[1] * s[2] * s[3]; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1], s[3]}, nt_ ? std::vector<int64_t>{s[0], s[2], s[3]} : std::vector<int64_t>{s[0], s[3], s[2]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], s[2]}; }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    const int64_t M = s[1], N = s[2], K = s[3];
    const int64_t lanes = std::max(1, t.float32_lanes());
    using space::capped_choices, space::index_of_choice;
    // Defaults of about a dozen accumulator vectors: six rows of two vectors where the shape has them.
    space::ConfigSpace cs;
    auto mr = capped_choices({1, 2, 4, 6, 8}, M);
    auto nr = capped_choices({lanes, 2 * lanes, 3 * lanes, 4 * lanes}, N);
    auto uk = capped_choices({1, 2, 4, 8}, K);
    cs.add_knob("mr", mr, index_of_choice(mr, 6), "rows of the register tile of accumulators");
    cs.add_knob("nr", nr, index_of_choice(nr, 2 * lanes),
                "columns of the register tile (multiples of the vector width)");
    cs.add_knob("unroll_k", uk, 0, "unroll depth of the k loop inside a tile");
    cs.add_knob("pack_b", {Json(false), Json(true)}, nt_ ? 1 : 0, "pack B into [b][N/nr][K][nr] panels first");
    cs.add_knob("parallel", {Json(false), Json(true)}, flops(s) >= (1 << 20) ? 1 : 0,
                "run the batch and tile rows on the thread pool");
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override;

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t Bn = s[0], M = s[1], N = s[2], K = s[3];
    const double scale = static_cast<float>(static_cast<double>(s[4]) * 1e-9);
    out->assign(static_cast<size_t>(Bn * M * N), 0.0f);
    tol->assign(out->size(), 0.0f);
    const double u = kUnitRoundoff, gamma = summation_bound(static_cast<double>(K));
    for (int64_t b = 0; b < Bn; ++b) {
      const float* A = in[0] + b * M * K;
      const float* Bm = in[1] + b * K * N;
      for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < N; ++n) {
          double acc = 0, mag = 0;
          for (int64_t k = 0; k < K; ++k) {
            const double p = static_cast<double>(A[m * K + k]) * (nt_ ? Bm[n * K + k] : Bm[k * N + n]);
            acc += p;
            mag += std::fabs(p);
          }
          const double v = acc * scale;
          (*out)[(b * M + m) * N + n] = static_cast<float>(v);
          (*tol)[(b * M + m) * N + n] =
              static_cast<float>(std::fabs(scale) * gamma * mag + 4 * u * std::fabs(v) + 1e-37);
        }
      }
    }
  }

 private:
  bool nt_;
};

Scheduled BatchMatmul::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                const codegen::Target& t) const {
  const int64_t Bn = s[0], M = s[1], N = s[2], K = s[3];
  const bool scaled = s[4] != kNoScale;
  const int64_t lanes = std::max(1, t.float32_lanes());
  const int64_t mr = cfg.get_int("mr"), nr = cfg.get_int("nr"), unroll_k = cfg.get_int("unroll_k");
  const bool pack_b = cfg.get_bool("pack_b"), parallel = cfg.get_bool("parallel");
  const auto f32 = ir::DataType::float32();

  Tensor A = te::placeholder({Bn, M, K}, f32, "A");
  Tensor B = te::placeholder(nt_ ? std::vector<int64_t>{Bn, N, K} : std::vector<int64_t>{Bn, K, N}, f32, "B");
  auto b_src = [&](Expr b, Expr k, Expr n) { return nt_ ? B(b, n, k) : B(b, k, n); };
  Tensor packed;
  std::function<Expr(Expr, Expr, Expr)> b_at = b_src;
  if (pack_b) {
    const int64_t panels = (N + nr - 1) / nr;
    packed = te::compute({Bn, panels, K, nr},
                         [&](const te::Indices& i) {
                           Expr n = i[1] * nr + i[3];
                           return N % nr == 0
                                      ? b_src(i[0], i[2], n)
                                      : ir::make_select(n < N, b_src(i[0], i[2], ir::min(n, N - 1)), Expr(0.0f));
                         },
                         "B.packed", {"b", "np", "k", "ni"});
    b_at = [&](Expr b, Expr k, Expr n) { return packed(b, ir::floordiv(n, nr), k, ir::floormod(n, nr)); };
  }
  ir::IterVar k = te::reduce_axis(K, "k");
  Tensor C = te::compute({Bn, M, N},
                         [&](const te::Indices& i) {
                           Expr kv = ir::to_expr(k->var);
                           return te::sum(A(i[0], i[1], kv) * b_at(i[0], kv, i[2]), {k});
                         },
                         "C", {"b", "m", "n"});
  Tensor out = C;
  if (scaled) {
    const Expr scale(static_cast<float>(static_cast<double>(s[4]) * 1e-9));
    out = te::compute({Bn, M, N}, [&](const te::Indices& i) { return C(i) * scale; }, "C.scaled", {"b", "m", "n"});
  }

  Scheduled result;
  result.inputs = {A, B};
  result.outputs = {out};
  result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
  schedule::Schedule& sch = *result.schedule;
  Tensor walker = out, tile = scaled ? C : sch.cache_write(C);

  schedule::Stage& w = sch[walker];
  auto [m_o, m_i] = w.split(w.axis(1), mr);
  auto [n_o, n_i] = w.split(w.axis(2), nr);
  w.reorder({w.axis(0), m_o, n_o, m_i, n_i});
  sch[tile].compute_at(w, n_o);
  vectorize_columns(w, n_i, lanes);
  if (parallel) w.parallel(w.fuse(w.axis(0), m_o));

  schedule::Stage& r = sch[tile];
  auto [k_o, k_i] = r.split(r.reduce_axis(0), unroll_k);
  r.reorder({k_o, k_i, r.axis(0), r.axis(1), r.axis(2)});
  r.unroll(k_i);
  r.unroll(r.axis(1));
  vectorize_columns(r, r.axis(2), lanes);
  if (pack_b) {
    schedule::Stage& p = sch[packed];
    vectorize_columns(p, p.axis(3), lanes);
    if (parallel) p.parallel(p.fuse(p.axis(0), p.axis(1)));
  }
  return result;
}

}  // namespace

std::unique_ptr<Operator> make_batch_matmul(bool b_transposed) { return std::make_unique<BatchMatmul>(b_transposed); }

}  // namespace tf::ops

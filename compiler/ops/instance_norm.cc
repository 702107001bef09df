// instance_norm on [n, c, spatial] (NCHW with the spatial axes flattened):
//   Y[n,c,s] = (X[n,c,s] - mean_nc) / sqrt(var_nc + eps) * scale[c] + bias[c]
// mean and biased variance over each plane (the variance about the mean, a second pass: no
// cancellation), both vectorized row reductions. eps is eps_e12 in units of 1e-12 as layer_norm's
// (default 10000000 = 1e-5, ONNX's).
#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/row_operator.h"

namespace tf::ops {
namespace {

using ir::Expr;

class InstanceNorm : public Operator {
 public:
  std::string name() const override { return "instance_norm"; }
  std::string description() const override {
    return "Y[n,c,s] = (X[n,c,s] - mean) / sqrt(var + eps_e12 * 1e-12) * scale[c] + bias[c], over each plane";
  }
  std::vector<std::string> shape_names() const override { return {"n", "c", "spatial", "eps_e12"}; }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    std::map<std::string, int64_t> with_default = named;
    with_default.emplace("n", 1);
    with_default.emplace("eps_e12", kDefaultEpsE12);
    return Operator::shape_from_named(with_default);
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape({s[0], s[1], s[2]});  // names by position: n, c, spatial
    if (s[3] < 1)
      throw CompileError("op 'instance_norm': extent eps_e12 = " + std::to_string(s[3]) + " must be positive");
    if (s[3] > 1000000000000)
      throw CompileError("op 'instance_norm': extent eps_e12 = " + std::to_string(s[3]) +
                         " is an epsilon above 1 (units of 1e-12)");
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    return "n=" + std::to_string(s[0]) + ",c=" + std::to_string(s[1]) + ",spatial=" + std::to_string(s[2]) +
           ",eps_e12=" + std::to_string(s[3]);
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return 8 * s[0] * s[1] * s[2]; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1], s[2]}, {s[1]}, {s[1]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], s[2]}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return row_config_space(s[0] * s[1], s[2], t);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t N = s[0], C = s[1], S = s[2], lanes = std::max(1, t.float32_lanes());
    const Expr inv(static_cast<float>(1.0 / static_cast<double>(S)));
    te::Tensor x = te::placeholder({N, C, S}, ir::DataType::float32(), "X");
    te::Tensor scale = te::placeholder({C}, ir::DataType::float32(), "scale");
    te::Tensor bias = te::placeholder({C}, ir::DataType::float32(), "bias");
    RowReduction sum_r(
        ir::ReduceKind::Sum, {N, C}, S, lanes, [&](const te::Indices& r, Expr k) { return x(r[0], r[1], k); },
        "plane_sum");
    const te::Tensor& sum = sum_r.result();
    RowReduction sq_r(
        ir::ReduceKind::Sum, {N, C}, S, lanes,
        [&](const te::Indices& r, Expr k) {
          Expr d = x(r[0], r[1], k) - sum(r[0], r[1]) * inv;
          return d * d;
        },
        "plane_sq");
    const te::Tensor& sq = sq_r.result();
    const Expr eps(static_cast<float>(static_cast<double>(s[3]) * 1e-12));
    te::Tensor y =
        te::compute({N, C, S},
                    [&](const te::Indices& i) {
                      Expr inv_std = ir::rsqrt(sq(i[0], i[1]) * inv + eps);
                      return (x(i[0], i[1], i[2]) - sum(i[0], i[1]) * inv) * (inv_std * scale(i[1])) + bias(i[1]);
                    },
                    "Y", {"n", "c", "s"});
    Scheduled result = make_scheduled({x, scale, bias}, y);
    schedule::Schedule& sch = *result.schedule;
    const bool parallel = cfg.get_bool("parallel");
    // The mean feeds the variance and the output: passes of their own.
    sum_r.compute_root(sch, parallel);
    sq_r.compute_root(sch, parallel);
    schedule::Stage& st = sch[y];
    const ir::IterVar planes = st.fuse(st.axis(0), st.axis(1));
    auto [o, in] = st.split(st.axis(2), lanes);
    (void)o;
    st.vectorize(in);
    if (parallel) st.parallel(planes);
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t C = s[1], S = s[2];
    out->assign(static_cast<size_t>(s[0] * C * S), 0.0f);
    tol->assign(out->size(), 0.0f);
    const double eps = static_cast<float>(static_cast<double>(s[3]) * 1e-12);
    for (int64_t p = 0; p < s[0] * C; ++p) {
      normalize_row_reference(in[0] + p * S, S, eps, in[1] + p % C, 0, in[2] + p % C, 0, out->data() + p * S,
                              tol->data() + p * S);
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_instance_norm() { return std::make_unique<InstanceNorm>(); }

}  // namespace tf::ops

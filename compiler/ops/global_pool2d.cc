// global_avg_pool2d and global_max_pool2d on NCHW: Y[n,c,0,0] = the mean / max of X[n,c,:,:]
// (output [n,c,1,1], as ONNX's GlobalAveragePool / GlobalMaxPool). Each plane is one row of h*w
// contiguous floats reduced with the vectorized row reduction.
#include <algorithm>

#include "compiler/ops/row_operator.h"

namespace tf::ops {
namespace {

using ir::Expr;

class GlobalPool2d : public Operator {
 public:
  explicit GlobalPool2d(bool max) : max_(max) {}
  std::string name() const override { return max_ ? "global_max_pool2d" : "global_avg_pool2d"; }
  std::string description() const override {
    return std::string("Y[n,c,0,0] = ") + (max_ ? "max" : "mean") + " over h, w of X[n,c,h,w] (NCHW)";
  }
  std::vector<std::string> shape_names() const override { return {"n", "c", "h", "w"}; }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    std::map<std::string, int64_t> with_default = named;
    with_default.emplace("n", 1);
    return Operator::shape_from_named(with_default);
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    return "n=" + std::to_string(s[0]) + ",c=" + std::to_string(s[1]) + ",h=" + std::to_string(s[2]) +
           ",w=" + std::to_string(s[3]);
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return s[0] * s[1] * s[2] * s[3]; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1], s[2], s[3]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], 1, 1}; }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return row_config_space(s[0] * s[1], s[2] * s[3], t);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t N = s[0], C = s[1], H = s[2], W = s[3], lanes = std::max(1, t.float32_lanes());
    te::Tensor x = te::placeholder({N, C, H, W}, ir::DataType::float32(), "X");
    // X(n, c, 0, k) for k up to h*w: the flat address of the plane's k-th element, so the vector
    // lanes read contiguous memory (k / w and k % w of a vector would not).
    RowReduction red(
        max_ ? ir::ReduceKind::Max : ir::ReduceKind::Sum, {N, C}, H * W, lanes,
        [&](const te::Indices& r, Expr k) { return x(r[0], r[1], Expr(0), k); }, max_ ? "plane_max" : "plane_sum");
    const te::Tensor& acc = red.result();
    const Expr inv(static_cast<float>(1.0 / static_cast<double>(H * W)));
    te::Tensor y =
        te::compute({N, C, 1, 1}, [&](const te::Indices& i) { return max_ ? acc(i[0], i[1]) : acc(i[0], i[1]) * inv; },
                    "Y", {"n", "c", "y", "x"});
    Scheduled result = make_scheduled({x}, y);
    schedule::Stage& st = (*result.schedule)[y];
    red.compute_at(*result.schedule, st, st.axis(1));
    if (cfg.get_bool("parallel")) st.parallel(st.axis(1));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t planes = s[0] * s[1], size = s[2] * s[3];
    if (!max_) return row_mean_reference(in[0], planes, size, out, tol);
    out->assign(static_cast<size_t>(planes), 0.0f);
    tol->assign(out->size(), 0.0f);  // a max is exact
    for (int64_t p = 0; p < planes; ++p) (*out)[p] = *std::max_element(in[0] + p * size, in[0] + (p + 1) * size);
  }

 private:
  bool max_;
};

}  // namespace

std::unique_ptr<Operator> make_global_avg_pool2d() { return std::make_unique<GlobalPool2d>(false); }
std::unique_ptr<Operator> make_global_max_pool2d() { return std::make_unique<GlobalPool2d>(true); }

}  // namespace tf::ops

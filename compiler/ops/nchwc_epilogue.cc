#include "compiler/ops/nchwc_epilogue.h"

namespace tf::ops {

std::string describe_epilogue(NchwcEpilogue e, const std::string& conv, const std::string& bias,
                              const std::string& residual) {
  switch (e) {
    case NchwcEpilogue::None: return conv;
    case NchwcEpilogue::Bias: return conv + " + " + bias;
    case NchwcEpilogue::BiasRelu: return "relu(" + conv + " + " + bias + ")";
    case NchwcEpilogue::BiasAdd: return conv + " + " + bias + " + " + residual;
    case NchwcEpilogue::BiasAddRelu: return "relu(" + conv + " + " + bias + " + " + residual + ")";
    case NchwcEpilogue::BiasClip: return "clip(" + conv + " + " + bias + ", 0, 6)";
  }
  return conv;
}

ir::Expr apply_nchwc_epilogue(NchwcEpilogue e, ir::Expr v, const te::Tensor& bias, const te::Tensor& residual,
                              const te::Indices& i, int64_t k, int64_t b) {
  using ir::Expr;
  if (has_bias(e)) v = v + bias(i[1], i[4]);
  if (has_residual(e)) v = v + residual(i[0], i[1], i[2], i[3], i[4]);
  if (has_relu(e) || has_clip(e)) v = ir::max(v, Expr(0.0f));
  if (has_clip(e)) v = ir::min(v, Expr(6.0f));
  if (k % b != 0) v = ir::make_select(i[1] * Expr(b) + i[4] < Expr(k), v, Expr(0.0f));
  return v;
}

te::Tensor nchwc_output(NchwcEpilogue e, const te::Tensor& conv, const te::Tensor& bias, const te::Tensor& residual,
                        int64_t k, int64_t b) {
  if (!has_bias(e) && k % b == 0) return conv;
  return te::compute(conv.shape(),
                     [&](const te::Indices& i) {
                       return apply_nchwc_epilogue(e, conv(i[0], i[1], i[2], i[3], i[4]), bias, residual, i, k, b);
                     },
                     "out", {"n", "ko", "y", "x", "l"});
}

void vectorize_lanes(schedule::Stage& st, const ir::IterVar& lanes_axis, int64_t block, int64_t target_lanes) {
  if (target_lanes <= 1) return;
  if (block <= target_lanes || block % target_lanes != 0) {
    st.vectorize(lanes_axis);
    return;
  }
  auto [outer, inner] = st.split(lanes_axis, target_lanes);
  st.unroll(outer);
  st.vectorize(inner);
}

}  // namespace tf::ops

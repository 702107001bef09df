#include <algorithm>

#include "compiler/ops/model_operators.h"
#include "compiler/ops/reduce_kind.h"
#include "compiler/ops/registry.h"

namespace tf::ops {

void add_parallel_knob(space::ConfigSpace& cs, int64_t outer, int64_t work, const std::string& description) {
  cs.add_knob("parallel", {Json(false), Json(true)}, outer > 1 && work >= (1 << 15) ? 1 : 0, description);
}

space::ConfigSpace row_config_space(int64_t rows, int64_t cols, const codegen::Target&) {
  space::ConfigSpace cs;
  add_parallel_knob(cs, rows, rows * cols, "run the rows on the thread pool");
  return cs;
}

void register_model_operators(Registry& r) {
  r.add(make_softmax());
  r.add(make_log_softmax());
  r.add(make_hardmax());
  r.add(make_argmax());
  r.add(make_argmin());
  r.add(make_layer_norm());
  for (ReduceOp op : kReduceOps) r.add(make_reduce(op));
  r.add(make_max_pool2d());
  r.add(make_avg_pool2d());
  r.add(make_max_pool2d_nchwc());
  r.add(make_avg_pool2d_nchwc());
  r.add(make_max_pool2d_u8());
  r.add(make_max_pool2d_nchwc_u8());
  r.add(make_max_pool3d());
  r.add(make_avg_pool3d());
  r.add(make_global_avg_pool2d());
  r.add(make_global_max_pool2d());
  r.add(make_global_avg_pool2d_nchwc());
  r.add(make_global_max_pool2d_nchwc());
  r.add(make_instance_norm());
  r.add(make_lrn());
  r.add(make_transpose());
  r.add(make_concat());
  r.add(make_strided_copy());
  r.add(make_gather());
  r.add(make_gather_elements());
  r.add(make_batch_matmul(false));
  r.add(make_batch_matmul(true));
  r.add(make_attention(false));
  r.add(make_attention(true));
}

}  // namespace tf::ops

#include "bench/winograd_accuracy.h"

#include <cmath>

#include "compiler/kernel_runner.h"
#include "compiler/ops/winograd.h"
#include "runtime/random_fill.h"

namespace tf::bench {

WinogradAccuracy winograd_error_vs_direct(const compiler::Task& task, const space::Config& cfg) {
  const auto& shape = task.workload().shape;
  const auto sh = ops::Conv2dWinogradShape::from_vector(shape);
  const ops::Conv2dShape& c = sh.conv;
  const std::string& op = task.workload().op;
  const bool relu = op.find("relu") != std::string::npos, clip = op.find("clip") != std::string::npos;

  std::vector<compiler::HostTensor> tensors;
  int index = 0;
  for (const auto& s : task.op().input_shapes(shape)) {
    tensors.emplace_back(s);
    runtime::fill_uniform(tensors.back().data(), tensors.back().size(), runtime::input_seed(3, index++));
  }
  tensors.emplace_back(task.op().output_shape(shape));
  // Padded channels zero, as every NCHWc producer writes them; the weight a real filter's transform.
  const auto plain = ops::activation_from_blocked(tensors[0].data(), c.n, c.c, c.h * c.w, sh.ib);
  const auto blocked = ops::activation_to_blocked(plain.data(), c.n, c.c, c.h * c.w, sh.ib);
  std::copy(blocked.begin(), blocked.end(), tensors[0].data());
  std::vector<float> weight(static_cast<size_t>(c.k * c.c * 9));
  runtime::fill_uniform(weight.data(), static_cast<int64_t>(weight.size()), 77);
  const auto u = ops::winograd_weight_transform(weight.data(), sh, sh.m);
  std::copy(u.begin(), u.end(), tensors[1].data());

  std::vector<TFBuffer> args;
  for (const auto& t : tensors) args.push_back(t.buffer());
  auto kernel = task.build_jit(cfg);
  WinogradAccuracy out;
  if (kernel->entry()(args.data(), static_cast<int32_t>(args.size())) != TF_OK) return out;

  const float* bias = tensors.size() > 3 ? tensors[2].data() : nullptr;
  const float* residual = tensors.size() > 4 ? tensors[3].data() : nullptr;
  std::vector<float> direct, direct_tol, wino, wino_tol;
  const auto packed = ops::weight_to_packed(weight.data(), c.k, c.c, 9, sh.ib, sh.ob);
  ops::conv2d_nchwc_reference(sh, tensors[0].data(), packed.data(), bias, residual, relu, clip, &direct, &direct_tol);
  ops::conv2d_winograd_reference(sh, tensors[0].data(), tensors[1].data(), bias, residual, relu, clip, &wino,
                                 &wino_tol);
  const float* got = tensors.back().data();
  out.within_bound = true;
  for (size_t i = 0; i < direct.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - direct[i]);
    out.max_abs_error = std::max(out.max_abs_error, err);
    out.max_abs_output = std::max(out.max_abs_output, static_cast<double>(std::fabs(direct[i])));
    if (!(err <= wino_tol[i] + direct_tol[i])) out.within_bound = false;
  }
  return out;
}

}  // namespace tf::bench

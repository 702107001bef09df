// Runs a registry op's kernel (default config, real LLVM codegen) on given inputs: for checks
// against data from elsewhere (ONNX's node tests) or inputs random ones do not fit (a log needs
// a positive sum).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/kernel_runner.h"
#include "compiler/ops/registry.h"

namespace tf::testing_support {

inline std::vector<float> run_op_kernel(const std::string& op, const std::vector<int64_t>& shape,
                                        const std::vector<std::vector<float>>& inputs) {
  compiler::Task task({op, shape}, codegen::host_target());
  std::vector<compiler::HostTensor> tensors;
  const auto in_shapes = task.op().input_shapes(shape);
  EXPECT_EQ(in_shapes.size(), inputs.size()) << op;
  for (size_t k = 0; k < in_shapes.size() && k < inputs.size(); ++k) {
    tensors.emplace_back(in_shapes[k]);
    EXPECT_EQ(static_cast<size_t>(tensors.back().size()), inputs[k].size()) << op << " input " << k;
    std::copy(inputs[k].begin(), inputs[k].begin() + std::min<int64_t>(tensors.back().size(), inputs[k].size()),
              tensors.back().data());
  }
  tensors.emplace_back(task.op().output_shape(shape));
  std::vector<TFBuffer> args;
  for (const auto& t : tensors) args.push_back(t.buffer());
  auto kernel = task.build_jit(task.space().default_config());
  EXPECT_EQ(kernel->entry()(args.data(), static_cast<int32_t>(args.size())), TF_OK)
      << op << " " << task.op().shape_text(shape);
  return std::vector<float>(tensors.back().data(), tensors.back().data() + tensors.back().size());
}

inline std::vector<float> run_op_kernel(const std::string& op, const std::string& shape_text,
                                        const std::vector<std::vector<float>>& inputs) {
  return run_op_kernel(op, ops::parse_shape(op, shape_text), inputs);
}

// max |got - want| / max |want| within `bound`, element counts equal.
inline void expect_close(const std::vector<float>& got, const std::vector<float>& want, double bound,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0, scale = 1e-30;
  size_t at = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::fabs(want[i])));
    const double d = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(d <= worst)) worst = d, at = i;
  }
  EXPECT_LE(worst / scale, bound) << what << ": worst at flat index " << at << ": got " << got[at] << ", want "
                                  << want[at];
}

// The kernel's output against the op's reference on the same inputs, within its tolerance.
inline void expect_kernel_matches_reference(const std::string& op, const std::string& shape_text,
                                            const std::vector<std::vector<float>>& inputs) {
  const std::vector<int64_t> shape = ops::parse_shape(op, shape_text);
  const std::vector<float> got = run_op_kernel(op, shape_text, inputs);
  std::vector<const float*> in;
  for (const auto& v : inputs) in.push_back(v.data());
  std::vector<float> ref, tol;
  ops::find_operator(op).reference(shape, in, &ref, &tol);
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_LE(std::fabs(static_cast<double>(got[i]) - ref[i]), tol[i])
        << op << " " << shape_text << " at " << i << ": " << got[i] << " vs " << ref[i];
  }
}

}  // namespace tf::testing_support

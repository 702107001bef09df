// ONNX's own node tests (Debian libonnx-testdata): each one-node model imported and run by the
// test-only evaluator against ONNX's expected outputs, so the importer reads every attribute as ONNX
// means it. Integer inputs (shapes, axes, indices) become constants first: tunefarm plans static
// shapes. Node tests of what tunefarm refuses must be refused by name.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/error.h"
#include "graph/onnx_import.h"
#include "tests/graph_evaluator.h"
#include "tests/onnx_node_data.h"

namespace tf::graph {
namespace {

using testing::kNodeTestsDir;
using testing::NodeTest;

// "" when the imported node computes ONNX's expected outputs; else what went wrong.
std::string run_node_test(const std::string& name) {
  const NodeTest t = testing::load_node_test(name);
  const Graph g = import_onnx_bytes(t.model, name);
  const auto outputs = testing::Evaluator(g).run(t.inputs);
  for (const auto& [out, bytes] : t.expected) {
    const Tensor expected = import_onnx_tensor(bytes, name + " output " + out);
    const Tensor& got = outputs.at(out);
    if (got.shape != expected.shape)
      return out + ": shape " + shape_str(got.shape) + ", expected " + shape_str(expected.shape);
    for (int64_t i = 0; i < got.size(); ++i) {
      const double e = expected.at(i), a = got.at(i);
      if (std::abs(a - e) > 1e-4 * (1 + std::abs(e)))
        return out + "[" + std::to_string(i) + "] = " + std::to_string(a) + ", expected " + std::to_string(e);
    }
  }
  return "";
}

TEST(OnnxNodeTests, SupportedOpsComputeWhatOnnxExpects) {
  if (!std::filesystem::exists(kNodeTestsDir)) GTEST_SKIP() << "libonnx-testdata is not installed (scripts/setup.sh)";
  // clang-format off
  const std::vector<std::string> tests = {
      "test_add", "test_add_bcast", "test_sub", "test_sub_bcast", "test_mul", "test_mul_bcast", "test_div", "test_div_bcast",
      "test_pow", "test_pow_bcast_array", "test_pow_bcast_scalar", "test_sqrt", "test_relu", "test_sigmoid", "test_tanh", "test_erf",
      "test_clip", "test_clip_default_min", "test_clip_default_max", "test_clip_splitbounds", "test_identity",
      "test_conv_with_strides_padding", "test_conv_with_strides_no_padding", "test_conv_with_strides_and_asymmetric_padding",
      "test_conv_with_autopad_same", "test_gemm_default_no_bias", "test_gemm_default_vector_bias", "test_gemm_default_matrix_bias",
      "test_gemm_default_scalar_bias", "test_gemm_transposeB", "test_gemm_transposeA", "test_gemm_alpha", "test_gemm_beta",
      "test_gemm_all_attributes", "test_softmax_axis_0", "test_softmax_axis_1", "test_dropout_default_old", "test_matmul_2d", "test_matmul_3d", "test_matmul_4d",
      "test_batchnorm_example", "test_batchnorm_epsilon", "test_maxpool_2d_default", "test_maxpool_2d_pads",
      "test_maxpool_2d_strides", "test_maxpool_2d_ceil", "test_maxpool_2d_precomputed_pads", "test_averagepool_2d_default",
      "test_averagepool_2d_pads", "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_strides",
      "test_averagepool_2d_same_lower", "test_averagepool_1d_default", "test_maxpool_1d_default",
      "test_flatten_axis0", "test_flatten_axis2", "test_flatten_default_axis",
      "test_flatten_negative_axis1", "test_reshape_negative_dim", "test_reshape_zero_dim", "test_reshape_reordered_all_dims",
      "test_transpose_default", "test_transpose_all_permutations_3", "test_concat_2d_axis_1",
      "test_concat_3d_axis_negative_2", "test_softmax_example", "test_softmax_default_axis", "test_softmax_large_number",
      "test_reduce_mean_negative_axes_keepdims_example", "test_reduce_mean_do_not_keepdims_example", "test_unsqueeze_axis_1", "test_unsqueeze_two_axes", "test_squeeze",
      "test_gather_0", "test_gather_negative_indices", "test_shape", "test_shape_start_1_end_negative_1",
      "test_reduce_sum_do_not_keepdims_example", "test_reduce_sum_empty_axes_input_noop_example", "test_reduce_max_keepdims_example",
      "test_reduce_l2_do_not_keepdims_example", "test_reduce_log_sum_desc_axes", "test_reduce_prod_default_axes_keepdims_example",
      "test_logsoftmax_axis_1", "test_hardmax_axis_0", "test_hardmax_one_hot", "test_softmax_axis_2",
      "test_layer_normalization_3d_axis1_epsilon", "test_layer_normalization_4d_axis_negative_3",
  };
  // clang-format on
  for (const auto& name : tests) {
    std::string failure;
    try {
      failure = run_node_test(name);
    } catch (const CompileError& e) {
      failure = std::string("refused: ") + e.what();
    } catch (const std::exception& e) {
      failure = std::string("exception: ") + e.what();
    }
    EXPECT_EQ(failure, "") << name;
  }
}

TEST(OnnxNodeTests, WhatTunefarmRefusesIsRefusedByName) {
  if (!std::filesystem::exists(kNodeTestsDir)) GTEST_SKIP() << "libonnx-testdata is not installed (scripts/setup.sh)";
  const std::vector<std::pair<std::string, std::string>> tests = {
      {"test_maxpool_with_argmax_2d_precomputed_pads", "output 'Indices' is not supported"},
      {"test_training_dropout_mask", "input 'training_mode' must be a constant (inference only)"},
      {"test_batchnorm_example_training_mode", "attribute 'training_mode' = 1 is not supported (inference only)"},
      {"test_cast_FLOAT_to_FLOAT16", "attribute 'to' = FLOAT16 is not supported"},
      {"test_resize_upsample_scales_cubic", "attribute 'mode' = 'cubic' is not supported"},
  };
  for (const auto& [name, says] : tests) {
    std::string error;
    try {
      run_node_test(name);
    } catch (const CompileError& e) {
      error = e.what();
    }
    EXPECT_FALSE(error.empty()) << name << " was not refused";
    EXPECT_NE(error.find(says), std::string::npos) << name << ": " << error;
    EXPECT_NE(error.find("opset"), std::string::npos) << name << ": " << error;
  }
}

}  // namespace
}  // namespace tf::graph

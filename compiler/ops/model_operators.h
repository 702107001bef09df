// The factories of the model-level operators (registered by register_model_operators).
#pragma once

#include <memory>

#include "compiler/ops/operator.h"

namespace tf::ops {

// A scale_e9 shape value of 1.0 (units of 1e-9): batch_matmul and attention unscaled.
constexpr int64_t kNoScale = 1000000000;

std::unique_ptr<Operator> make_softmax();
std::unique_ptr<Operator> make_log_softmax();
std::unique_ptr<Operator> make_hardmax();
std::unique_ptr<Operator> make_argmax();
std::unique_ptr<Operator> make_argmin();
std::unique_ptr<Operator> make_layer_norm();
std::unique_ptr<Operator> make_max_pool2d();
std::unique_ptr<Operator> make_max_pool2d_u8();  // a quantized model's uint8 activations
std::unique_ptr<Operator> make_avg_pool2d();
std::unique_ptr<Operator> make_max_pool2d_nchwc();  // pool2d_nchwc.cc
std::unique_ptr<Operator> make_max_pool2d_nchwc_u8();
std::unique_ptr<Operator> make_avg_pool2d_nchwc();
std::unique_ptr<Operator> make_max_pool3d();  // pool3d.cc
std::unique_ptr<Operator> make_avg_pool3d();
std::unique_ptr<Operator> make_global_avg_pool2d();
std::unique_ptr<Operator> make_global_max_pool2d();
std::unique_ptr<Operator> make_global_avg_pool2d_nchwc();  // global_pool2d_nchwc.cc
std::unique_ptr<Operator> make_global_max_pool2d_nchwc();
std::unique_ptr<Operator> make_instance_norm();
std::unique_ptr<Operator> make_lrn();
std::unique_ptr<Operator> make_strided_copy();
std::unique_ptr<Operator> make_gather();
std::unique_ptr<Operator> make_gather_elements();
std::unique_ptr<Operator> make_transpose();
std::unique_ptr<Operator> make_concat();
std::unique_ptr<Operator> make_batch_matmul(bool b_transposed);
std::unique_ptr<Operator> make_attention(bool masked);  // attention.cc

// The float32 unit roundoff and the bound on a float32 sum of n terms in any order (relative to
// the sum of their magnitudes), which every reference's tolerance builds on.
constexpr double kUnitRoundoff = 1.0 / (1 << 24);
inline double summation_bound(double n) { return (n + 2) * kUnitRoundoff / (1 - (n + 2) * kUnitRoundoff); }

// The "parallel" knob: the outermost loop's `outer` iterations shared among threads, on by default
// when there are more than one and at least 2^15 units of `work`: below that, waking the thread
// pool (microseconds) costs more than it saves.
void add_parallel_knob(space::ConfigSpace& cs, int64_t outer, int64_t work, const std::string& description);

// The config space of the row-wise ops (softmax, layer_norm, reduce_mean): the rows in parallel
// or not, on by default when there is enough work; their columns are always vectorized.
space::ConfigSpace row_config_space(int64_t rows, int64_t cols, const codegen::Target& t);

}  // namespace tf::ops

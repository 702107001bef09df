// What the row-wise ops on [rows, cols] share (layer_norm, instance_norm, and the global pools
// whose rows are planes): the shape and its config space, the schedule of an output computed after
// row passes, and the references of a row mean and of a normalized row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/model_operators.h"
#include "compiler/ops/row_reduction.h"

namespace tf::ops {

// The eps_e12 knob's default, ONNX's epsilon of 1e-5 in units of 1e-12.
constexpr int64_t kDefaultEpsE12 = 10000000;

// Schedules the output y[rows, cols] after its row reductions (in the order given: each may read
// the ones before it), all of them one row at a time inside y's row loop, so a row is read from
// memory once and stays in L1 for the passes over it; y's columns vectorized; the rows in parallel
// when `parallel`.
void schedule_after_row_passes(schedule::Schedule& sch, const te::Tensor& y,
                               const std::vector<const RowReduction*>& passes, int64_t lanes, bool parallel);

// The mean of each row of x[rows, cols] in double precision, and the error a float32 kernel may
// make (any summation order).
void row_mean_reference(const float* x, int64_t rows, int64_t cols, std::vector<float>* out, std::vector<float>* tol);

// One row x[cols] normalized: (x - mean) / sqrt(var + eps) * gamma[c * gamma_stride] + beta[...]
// in double precision, and per element the error a float32 kernel may make (layer_norm's rows,
// instance_norm's planes with stride 0: one scale and bias per plane).
void normalize_row_reference(const float* x, int64_t cols, double eps, const float* gamma, int64_t gamma_stride,
                             const float* beta, int64_t beta_stride, float* out, float* tol);

}  // namespace tf::ops

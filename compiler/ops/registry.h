// The table of operator templates. Each operator family registers itself here.
#pragma once

#include <memory>
#include <vector>

#include "compiler/ops/operator.h"

namespace tf::ops {

class Registry {
 public:
  void add(std::unique_ptr<Operator> op) { ops_.push_back(std::move(op)); }
  const std::vector<std::unique_ptr<Operator>>& all() const { return ops_; }

 private:
  std::vector<std::unique_ptr<Operator>> ops_;
};

void register_dense_operators(Registry& r);
void register_qdense_operators(Registry& r);            // qdense_packed(_centered): uint8 x int8 panels, requantized
void register_conv2d_operators(Registry& r);            // plain NCHW / OIHW
void register_conv3d_operators(Registry& r);            // plain NCDHW (conv3d.cc)
void register_conv3d_transpose_operators(Registry& r);  // ONNX ConvTranspose on NCDHW
// What whole models need beyond dense and conv2d: pooling, softmax, layer_norm, reduce_mean,
// transpose, concat, batch_matmul (compiler/ops/model_operators.cc).
void register_model_operators(Registry& r);
void register_conv2d_nchwc_operators(Registry& r);  // blocked NCHWc convolutions and layout ops
// ONNX ConvTranspose and Resize/Upsample (conv2d_transpose.cc, resize2d.cc).
void register_conv2d_transpose_operators(Registry& r);
void register_resize_operators(Registry& r);

}  // namespace tf::ops

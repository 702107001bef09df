// What the blocked convolution templates share as operators: the name and fused epilogue, and the
// shape plumbing, which only needs the template's shape type (Conv2dNchwcShape,
// DepthwiseNchwcShape: names, from_named, from_vector, check, named, conv, out_shape).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ops/nchwc_epilogue.h"
#include "compiler/ops/operator.h"

namespace tf::ops {

template <typename Shape>
class NchwcConvOperator : public Operator {
 public:
  NchwcConvOperator(std::string name, NchwcEpilogue e) : name_(std::move(name)), epilogue_(e) {}

  std::string name() const override { return name_; }
  std::vector<std::string> shape_names() const override { return Shape::names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return Shape::from_named(named).to_vector();
  }
  void check_shape(const std::vector<int64_t>& s) const override { Shape::from_vector(s).check(name_); }
  std::string shape_text(const std::vector<int64_t>& s) const override { return Shape::from_vector(s).named(); }
  int64_t flops(const std::vector<int64_t>& s) const override { return Shape::from_vector(s).conv.flops(); }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    return Shape::from_vector(s).out_shape();
  }

 protected:
  // The blocked data, `weight`, then what the epilogue reads: the bias per output block, the
  // residual of the output's layout (for the templates whose output block is `ob`).
  std::vector<std::vector<int64_t>> inputs_with_epilogue(const Shape& sh, std::vector<int64_t> weight) const {
    std::vector<std::vector<int64_t>> in = {sh.data_shape(), std::move(weight)};
    if (has_bias(epilogue_)) in.push_back({sh.k_blocks(), sh.ob});
    if (has_residual(epilogue_)) in.push_back(sh.out_shape());
    return in;
  }

  const std::string name_;
  const NchwcEpilogue epilogue_;
};

}  // namespace tf::ops

// The shape of an op over one axis of a tensor: rows, cols, inner, the tensor seen as
// [rows, cols, inner] with the op's axis in the middle (rows = product of the extents before it,
// inner = product after it; named shapes default inner to 1, the last axis), then the op's own
// extents.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/operator.h"

namespace tf::ops {

class AxisOperator : public Operator {
 public:
  // extra: the op's own extents after rows, cols, inner, each with its default (-1: required).
  explicit AxisOperator(std::vector<std::pair<std::string, int64_t>> extra = {}) : extra_(std::move(extra)) {}
  std::vector<std::string> shape_names() const override;
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override;
  std::string shape_text(const std::vector<int64_t>& s) const override;
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1], s[2]}};
  }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override;

 private:
  std::vector<std::pair<std::string, int64_t>> extra_;
};

}  // namespace tf::ops

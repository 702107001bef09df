// The table of operator templates. Each operator family registers itself here; adding conv2d later
// is one more register_* call.
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

}  // namespace tf::ops

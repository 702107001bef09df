#include "support/workload_key.h"

namespace tf {

std::string workload_key(const std::string& op, const std::vector<int64_t>& shape, const std::string& dtype) {
  std::string s = op + "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  s += "]";
  return dtype.empty() ? s : s + ":" + dtype;
}

}  // namespace tf

#include "compiler/ops/axis_shape.h"

#include "compiler/ops/model_operators.h"

namespace tf::ops {

std::vector<std::string> AxisOperator::shape_names() const {
  std::vector<std::string> n = {"rows", "cols", "inner"};
  for (const auto& [name, def] : extra_) n.push_back(name);
  return n;
}

std::vector<int64_t> AxisOperator::shape_from_named(const std::map<std::string, int64_t>& named) const {
  std::map<std::string, int64_t> with_default = named;
  with_default.emplace("inner", 1);
  for (const auto& [name, def] : extra_) {
    if (def >= 0) with_default.emplace(name, def);
  }
  return Operator::shape_from_named(with_default);
}

std::string AxisOperator::shape_text(const std::vector<int64_t>& s) const {
  const auto names = shape_names();
  std::string t;
  for (size_t k = 0; k < names.size(); ++k) t += (k ? "," : "") + names[k] + "=" + std::to_string(s[k]);
  return t;
}

space::ConfigSpace AxisOperator::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  return row_config_space(s[0] * s[2], s[1], t);
}

}  // namespace tf::ops

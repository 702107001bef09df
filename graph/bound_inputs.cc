#include "graph/bound_inputs.h"

namespace tf::graph {
namespace {

std::string list_text(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out;
}

}  // namespace

Json bound_inputs_json(const Graph& g) {
  Json out = Json::object();
  for (const auto& name : g.inputs) out[name] = g.value(name).shape;
  return out;
}

std::string bound_inputs_text(const Graph& g) {
  std::string out;
  for (const auto& name : g.inputs) out += (out.empty() ? "" : " ") + name + "=" + list_text(g.value(name).shape);
  return out;
}

}  // namespace tf::graph

#include "graph/graph_text.h"

#include <cstdio>
#include <type_traits>

namespace tf::graph {
namespace {

// Long attribute lists (a Resize's scales, a Constant's folded data) end in "..." past this many.
constexpr size_t kShownAttributeItems = 16;

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string number_text(int64_t v) { return std::to_string(v); }

template <typename T>
std::string items_text(const std::vector<T>& items, size_t shown) {
  std::string s = "[";
  for (size_t i = 0; i < items.size() && i < shown; ++i) s += (i ? "," : "") + number_text(items[i]);
  if (items.size() > shown) s += ",... (" + std::to_string(items.size()) + ")";
  return s + "]";
}

std::string attribute_text(const Attribute& a) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return "\"" + v + "\"";
        } else if constexpr (std::is_arithmetic_v<T>) {
          return number_text(v);
        } else {
          return items_text(v, kShownAttributeItems);
        }
      },
      a);
}

std::string typed_value(const Value& v) { return v.name + " " + dtype_name(v.dtype) + shape_str(v.shape); }

std::string input_text(const Graph& g, const std::string& name) {
  if (name.empty()) return "_";  // an absent optional input
  if (!g.has_value(name)) return name;
  const Value& v = g.value(name);
  if (!v.is_constant()) return name;
  std::string s = "const " + typed_value(v);
  const Tensor& t = *v.data;
  if (t.size() <= kShownElements && static_cast<int64_t>(t.held()) == t.size()) {
    std::vector<double> elements;
    for (int64_t i = 0; i < t.size(); ++i) elements.push_back(t.at(i));
    s += " " + items_text(elements, kShownElements);
  }
  return s;
}

std::string output_text(const Graph& g, const std::string& name) {
  return g.has_value(name) ? typed_value(g.value(name)) : name;
}

std::string node_text(const Graph& g, const Node& n) {
  std::string s;
  for (size_t i = 0; i < n.outputs.size(); ++i) s += (i ? ", " : "") + output_text(g, n.outputs[i]);
  s += " = " + n.op + "(";
  for (size_t i = 0; i < n.inputs.size(); ++i) s += (i ? ", " : "") + input_text(g, n.inputs[i]);
  s += ")";
  if (!n.attrs.empty()) {
    std::string attrs;
    for (const auto& [name, a] : n.attrs) attrs += (attrs.empty() ? "" : ", ") + name + "=" + attribute_text(a);
    s += " {" + attrs + "}";
  }
  return s + "  // " + n.name;
}

void append_graph(std::string& out, const Graph& g, const std::string& indent) {
  std::string inputs;
  for (const auto& name : g.inputs) inputs += (inputs.empty() ? "" : ", ") + output_text(g, name);
  out += indent + "inputs: " + inputs + "\n";
  for (const auto& n : g.nodes) {
    out += indent + node_text(g, n) + "\n";
    if (n.body) append_graph(out, *n.body, indent + "    ");
  }
  std::string outputs;
  for (const auto& name : g.outputs) outputs += (outputs.empty() ? "" : ", ") + name;
  out += indent + "outputs: " + outputs + "\n";
}

}  // namespace

std::string to_text(const Graph& g) {
  std::string out;
  append_graph(out, g, "");
  return out;
}

}  // namespace tf::graph

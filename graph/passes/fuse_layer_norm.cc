// Layer normalization over the last axis as exporters before opset 17 write it:
//
//   mean = ReduceMean(x, last axis, keepdims)      d = Sub(x, mean)
//   var  = ReduceMean(Pow(d, 2) | Mul(d, d), last axis, keepdims)
//   y    = Div(d, Sqrt(Add(var, eps)))  [then Mul gamma] [then Add beta]
//
// becomes one LayerNormalization node (the layer_norm kernel: two passes over a row instead of
// six kernels, each a pass over the whole tensor). gamma and beta must be constants with one value
// per column; either may be missing (ones, zeros). Changes results by float rounding only.
#include "graph/passes/passes.h"
#include "graph/passes/pattern.h"

namespace tf::graph::passes {
namespace {

struct LayerNorm {
  std::string x, gamma, beta, output;
  double epsilon = 0;
  std::vector<size_t> nodes;  // replaced
};

bool mean_over_last_axis(const Graph& g, const Node& n) {
  if (n.op != "ReduceMean" || n.inputs.empty()) return false;
  const int64_t rank = static_cast<int64_t>(g.value(n.inputs[0]).shape.size());
  return rank >= 1 && n.attr_ints("axes", {}) == std::vector<int64_t>{rank - 1} && n.attr_int("keepdims", 1) == 1;
}

// The other input of a binary node, when one of its inputs is `value`.
std::optional<std::string> other_input(const Node& n, const std::string& value) {
  if (n.inputs.size() != 2) return std::nullopt;
  if (n.inputs[0] == value) return n.inputs[1];
  if (n.inputs[1] == value) return n.inputs[0];
  return std::nullopt;
}

// A float constant with one value per column ([C], [1, C], ...).
bool per_column(const Graph& g, const std::string& name, int64_t cols) {
  const Tensor* t = g.constant(name);
  if (!t || t->dtype != DType::Float32 || t->shape.empty() || t->shape.back() != cols) return false;
  return element_count(t->shape) == cols;
}

// d squared: Pow(d, 2) or Mul(d, d), read once by a ReduceMean over the last axis; its output.
std::optional<std::string> variance_of(const Graph& g, size_t square) {
  const Node& sq = g.nodes[square];
  const std::string& d = sq.inputs[0];
  const bool squares = (sq.op == "Pow" && sq.inputs.size() == 2 && g.scalar_constant(sq.inputs[1]) == 2.0) ||
                       (sq.op == "Mul" && sq.inputs.size() == 2 && sq.inputs[1] == d);
  if (!squares) return std::nullopt;
  const int r = sole_reader(g, sq.outputs[0]);
  if (r < 0 || !mean_over_last_axis(g, g.nodes[r])) return std::nullopt;
  return g.nodes[r].outputs[0];
}

std::optional<LayerNorm> match_layer_norm(const Graph& g, size_t mean_node) {
  const Node& mean = g.nodes[mean_node];
  if (!mean_over_last_axis(g, mean)) return std::nullopt;
  LayerNorm ln;
  ln.x = mean.inputs[0];
  const Value& xv = g.value(ln.x);
  if (xv.dtype != DType::Float32) return std::nullopt;
  const int64_t cols = xv.shape.back();
  const int sub = sole_reader(g, mean.outputs[0]);
  if (sub < 0 || g.nodes[sub].op != "Sub" || g.nodes[sub].inputs != std::vector<std::string>{ln.x, mean.outputs[0]})
    return std::nullopt;
  const std::string& d = g.nodes[sub].outputs[0];
  // d is read twice: squared (for the variance) and divided by the standard deviation.
  const auto readers = g.consumers(d);
  if (readers.size() != 2 || g.is_output(d)) return std::nullopt;
  size_t square = readers[0], divide = readers[1];
  if (g.nodes[square].op == "Div") std::swap(square, divide);
  const Node& div = g.nodes[divide];
  if (div.op != "Div" || div.inputs[0] != d) return std::nullopt;
  const auto var = variance_of(g, square);
  if (!var) return std::nullopt;
  const int add_eps = sole_reader(g, *var);
  if (add_eps < 0 || g.nodes[add_eps].op != "Add") return std::nullopt;
  const auto eps_name = other_input(g.nodes[add_eps], *var);
  const auto eps = eps_name ? g.scalar_constant(*eps_name) : std::nullopt;
  if (!eps || !(*eps > 0 && *eps <= 1)) return std::nullopt;
  const int sqrt = sole_reader(g, g.nodes[add_eps].outputs[0]);
  if (sqrt < 0 || g.nodes[sqrt].op != "Sqrt" || div.inputs[1] != g.nodes[sqrt].outputs[0] ||
      g.use_count(div.inputs[1]) != 1)
    return std::nullopt;
  ln.epsilon = *eps;
  ln.nodes = {mean_node,
              static_cast<size_t>(sub),
              square,
              static_cast<size_t>(g.producer(*var)),
              static_cast<size_t>(add_eps),
              static_cast<size_t>(sqrt),
              divide};
  ln.output = div.outputs[0];
  // The affine part, when it is one value per column: Mul by gamma, then Add beta.
  for (const char* op : {"Mul", "Add"}) {
    const int next = sole_reader(g, ln.output);
    if (next < 0 || g.nodes[next].op != op) break;
    const auto param = other_input(g.nodes[next], ln.output);
    if (!param || !per_column(g, *param, cols) || g.value(g.nodes[next].outputs[0]).shape != xv.shape) break;
    (std::string(op) == "Mul" ? ln.gamma : ln.beta) = *param;
    ln.nodes.push_back(static_cast<size_t>(next));
    ln.output = g.nodes[next].outputs[0];
  }
  return ln;
}

// A [cols] constant of the column values of `name`, or of `fill` when it is "".
std::string column_constant(Graph& g, const std::string& name, int64_t cols, float fill, const std::string& stem) {
  Tensor t =
      name.empty() ? Tensor::floats({cols}, std::vector<float>(static_cast<size_t>(cols), fill)) : *g.constant(name);
  t.shape = {cols};
  std::string fresh = g.unique_name(stem);
  g.set_value(Value{fresh, DType::Float32, {cols}, std::make_shared<const Tensor>(std::move(t))});
  return fresh;
}

}  // namespace

Graph fuse_layer_norm(const Graph& in) {
  Graph g = in;
  std::vector<Replacement> found;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto ln = match_layer_norm(g, i);
    if (!ln || overlaps(found, ln->nodes)) continue;
    const int64_t cols = g.value(ln->x).shape.back();
    Node n;
    n.name = g.unique_name(g.nodes[i].name + ".layer_norm");
    n.op = "LayerNormalization";
    n.inputs = {ln->x, column_constant(g, ln->gamma, cols, 1.0f, n.name + ".gamma"),
                column_constant(g, ln->beta, cols, 0.0f, n.name + ".beta")};
    n.outputs = {ln->output};
    n.attrs["axis"] = static_cast<int64_t>(g.value(ln->x).shape.size()) - 1;
    n.attrs["epsilon"] = ln->epsilon;
    found.push_back(Replacement{ln->nodes, std::move(n)});
  }
  return replace_nodes(std::move(g), std::move(found));
}

}  // namespace tf::graph::passes

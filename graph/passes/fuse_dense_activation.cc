// A dense_bias whose only reader is GELU moves it into its epilogue. Exporters spell GELU in many
// orders (x * 0.5 * (1 + erf(x / sqrt 2)), 0.5 * x * (...), x * sigmoid-free tanh forms, opset 20's
// Gelu); after fuse_elementwise each is one elementwise node of the dense output alone, so the node
// is recognised by what its expression computes, not by its spelling: evaluated at points spread
// over GELU's curved part and tails, it must agree with the erf form or the tanh approximation.
#include <cmath>
#include <set>

#include "compiler/error.h"
#include "compiler/ops/dense_epilogue.h"
#include "compiler/ops/elementwise.h"
#include "graph/kernel_calls.h"
#include "graph/passes/passes.h"

namespace tf::graph::passes {
namespace {

// Far enough apart to tell the two forms (they differ by up to 5e-4 near |x| = 2) and to tell
// either from any other function a chain of constants could make.
constexpr double kSamples[] = {-7.5, -4, -2.2, -1.3, -0.6, -0.15, 0, 0.04, 0.3, 0.9, 1.7, 2.6, 3.9, 8};
constexpr double kAgreement = 1e-5;

bool computes(const ops::ElementwiseExpr& e, double (*f)(double)) {
  for (double x : kSamples) {
    const double got = e.evaluate({x}).value, want = f(x);
    if (!(std::fabs(got - want) <= kAgreement * (1 + std::fabs(want)))) return false;
  }
  return true;
}

// "dense_bias_gelu" or "dense_bias_gelu_tanh" when node `act` computes that GELU of `value` and
// reads nothing else but constants; "" otherwise.
std::string gelu_kernel(const Graph& g, const Node& act, const std::string& value) {
  if (act.outputs.size() != 1 || g.value(act.outputs[0]).shape != g.value(value).shape) return "";
  NodeLowering lowered;
  try {
    lowered = lower_node(g, act);
  } catch (const CompileError&) {
    return "";  // not an elementwise node, or one no kernel runs
  }
  if (!lowered.call || lowered.call->args.size() != 2 || lowered.call->args[0] != value) return "";
  const auto* op = dynamic_cast<const ops::ElementwiseOperator*>(lowered.call->op.get());
  if (!op || op->num_inputs() != 1 || op->output_dtype() != DType::Float32) return "";
  if (computes(op->expr(), ops::gelu_erf)) return "dense_bias_gelu";
  if (computes(op->expr(), ops::gelu_tanh)) return "dense_bias_gelu_tanh";
  return "";
}

}  // namespace

Graph fuse_dense_activation(const Graph& in) {
  Graph g = in;
  std::set<size_t> absorbed;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& dense = g.nodes[i];
    if (dense.op != "dense_bias" || absorbed.count(i)) continue;
    const std::string& out = dense.outputs[0];
    const auto readers = g.consumers(out);
    if (readers.size() != 1 || absorbed.count(readers[0]) || g.is_output(out)) continue;
    const Node& act = g.nodes[readers[0]];
    const std::string kernel = gelu_kernel(g, act, out);
    if (kernel.empty()) continue;
    dense.op = kernel;
    dense.outputs = act.outputs;
    absorbed.insert(readers[0]);
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!absorbed.count(i)) kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
  g.remove_unused_values();
  return g;
}

}  // namespace tf::graph::passes

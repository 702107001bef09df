// A dense_bias whose output feeds GELU alone moves GELU into its epilogue. Exporters spell GELU in
// many orders (x * 0.5 * (1 + erf(x / sqrt 2)), 0.5 * x * (...), the tanh approximation with Pow or
// x * x * x, opset 20's Gelu), and where the dense output has several readers fuse_elementwise
// leaves the spelling as a few nodes. So the candidate is grown from the dense output: the
// elementwise nodes (fused or not) after it that read only it, scalar constants and each other,
// up to a node whose ancestors among them form a closed region (nothing outside reads their values
// or the dense output); that region is recognised by what it computes, not by its spelling:
// evaluated at points spread over GELU's curved part and tails, it must agree with the erf form
// or the tanh approximation.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compiler/error.h"
#include "compiler/ops/dense_epilogue.h"
#include "compiler/ops/elementwise.h"
#include "graph/constant_eval.h"
#include "graph/kernel_calls.h"
#include "graph/passes/fused_body.h"
#include "graph/passes/passes.h"

namespace tf::graph::passes {
namespace {

// Far enough apart to tell the two forms (they differ by up to 5e-4 near |x| = 2) and to tell
// either from any other function a chain of constants could make.
constexpr double kSamples[] = {-7.5, -4, -2.2, -1.3, -0.6, -0.15, 0, 0.04, 0.3, 0.9, 1.7, 2.6, 3.9, 8};
constexpr double kAgreement = 1e-5;
// GELU's longest spelling (the tanh form with Pow) is 8 nodes; beyond this nothing is GELU.
constexpr size_t kMaxRegion = 16;

bool computes(const ops::ElementwiseExpr& e, double (*f)(double)) {
  for (double x : kSamples) {
    const double got = e.evaluate({x}).value, want = f(x);
    if (!(std::fabs(got - want) <= kAgreement * (1 + std::fabs(want)))) return false;
  }
  return true;
}

bool fusible(const Graph& g, const Node& n, const Shape& shape) {
  return (n.op == kFusedElementwise || is_elementwise(n.op)) && n.outputs.size() == 1 &&
         g.value(n.outputs[0]).dtype == DType::Float32 && g.value(n.outputs[0]).shape == shape;
}

// The nodes of `region` that `sink` depends on, sink included, in graph order.
std::vector<size_t> ancestors(const Graph& g, const std::vector<size_t>& region, size_t sink) {
  std::map<std::string, size_t> producer;
  for (size_t i : region) producer[g.nodes[i].outputs[0]] = i;
  std::set<size_t> seen = {sink};
  std::vector<size_t> work = {sink};
  while (!work.empty()) {
    const size_t i = work.back();
    work.pop_back();
    for (const auto& in : g.nodes[i].inputs) {
      auto it = producer.find(in);
      if (it != producer.end() && seen.insert(it->second).second) work.push_back(it->second);
    }
  }
  return std::vector<size_t>(seen.begin(), seen.end());
}

// Whether only the nodes `part` read `value` (and it is no graph output).
bool read_only_by(const Graph& g, const std::string& value, const std::set<size_t>& part) {
  if (g.is_output(value)) return false;
  for (size_t r : g.consumers(value)) {
    if (!part.count(r)) return false;
  }
  return true;
}

// The nodes `part` as one fused_elementwise node computing `sink`'s output (nested fused nodes'
// bodies inlined): what the elementwise lowering turns into one expression.
Node as_one_node(const Graph& g, const std::vector<size_t>& part, size_t sink) {
  auto body = std::make_shared<Graph>();
  Node fused;
  fused.name = g.nodes[sink].name + ".gelu";
  fused.op = kFusedElementwise;
  std::set<std::string> internal;
  for (size_t i : part) internal.insert(g.nodes[i].outputs[0]);
  for (size_t i : part) {
    const Node& n = g.nodes[i];
    add_outside_inputs(g, n, internal, fused, *body);  // the dense output and scalar constants
    if (n.op == kFusedElementwise) {
      for (const Node& inner : n.body->nodes) {
        body->set_value(n.body->value(inner.outputs[0]));
        body->nodes.push_back(inner);
      }
    } else {
      body->set_value(g.value(n.outputs[0]));
      body->nodes.push_back(n);
    }
  }
  fused.outputs = {g.nodes[sink].outputs[0]};
  body->outputs = fused.outputs;
  fused.body = body;
  return fused;
}

// "dense_bias_gelu" or "dense_bias_gelu_tanh" when the nodes compute that GELU of `value`; "".
std::string gelu_kernel(const Graph& g, const Node& fused, const std::string& value) {
  NodeLowering lowered;
  try {
    lowered = lower_node(g, fused);
  } catch (const CompileError&) {
    return "";  // an op no elementwise kernel runs
  }
  if (!lowered.call || lowered.call->args.size() != 2 || lowered.call->args[0] != value) return "";
  const auto* op = dynamic_cast<const ops::ElementwiseOperator*>(lowered.call->op.get());
  if (!op || op->num_inputs() != 1 || op->output_dtype() != DType::Float32) return "";
  if (computes(op->expr(), ops::gelu_erf)) return "dense_bias_gelu";
  if (computes(op->expr(), ops::gelu_tanh)) return "dense_bias_gelu_tanh";
  return "";
}

struct Match {
  std::string kernel;
  std::vector<size_t> nodes;  // absorbed into the dense
  std::string output;
};

// Grows the region after node `at` (a dense_bias) and returns the first closed part of it that is GELU.
std::optional<Match> gelu_after(const Graph& g, size_t at, const std::set<size_t>& taken) {
  const std::string& d = g.nodes[at].outputs[0];
  const Shape& shape = g.value(d).shape;
  std::set<std::string> available = {d};
  std::vector<size_t> region;
  for (size_t j = at + 1; j < g.nodes.size() && region.size() < kMaxRegion; ++j) {
    const Node& n = g.nodes[j];
    if (taken.count(j) || !fusible(g, n, shape)) continue;
    bool reads_region = false, reads_only_these = true;
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      if (available.count(in))
        reads_region = true;
      else if (!g.scalar_constant(in))
        reads_only_these = false;
    }
    if (!reads_region || !reads_only_these) continue;
    region.push_back(j);
    available.insert(n.outputs[0]);
    const std::vector<size_t> part = ancestors(g, region, j);
    const std::set<size_t> members(part.begin(), part.end());
    bool closed = read_only_by(g, d, members);
    for (size_t i : part) closed = closed && (i == j || read_only_by(g, g.nodes[i].outputs[0], members));
    if (!closed) continue;
    const std::string kernel = gelu_kernel(g, as_one_node(g, part, j), d);
    if (!kernel.empty()) return Match{kernel, part, n.outputs[0]};
  }
  return std::nullopt;
}

}  // namespace

Graph fuse_dense_activation(const Graph& in) {
  Graph g = in;
  std::set<size_t> absorbed;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op != "dense_bias" || absorbed.count(i)) continue;
    const auto match = gelu_after(g, i, absorbed);
    if (!match) continue;
    g.nodes[i].op = match->kernel;
    g.nodes[i].outputs = {match->output};
    absorbed.insert(match->nodes.begin(), match->nodes.end());
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

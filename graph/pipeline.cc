#include "graph/pipeline.h"

#include <algorithm>
#include <functional>

#include "compiler/error.h"
#include "graph/passes/passes.h"

namespace tf::graph {
namespace {

struct Pass {
  const char* name;
  std::function<Graph(const Graph&)> run;
};

// Read top to bottom: what a model goes through between import and its kernels.
std::vector<Pass> pipeline(const PlanOptions& options) {
  return {
      {"fold_constants",
       [&options](const Graph& g) {
         return passes::fold_constants(g, options.blocked_layouts);
       }},  // shape arithmetic, constant casts, Identity; int8 weights kept for fuse_qdq
      {"fuse_qdq",
       [&options](const Graph& g) {
         return options.blocked_layouts ? passes::fuse_qdq(g) : g;
       }},  // DequantizeLinear -> Conv -> QuantizeLinear: one integer conv
      {"fold_constants", [](const Graph& g) { return passes::fold_constants(g); }},  // the weights left dequantized
      {"lift_unit_height", passes::lift_unit_height},  // 1-D windows' neighbours on [N,C,1,L]: no Reshapes between
      {"fold_batchnorm", passes::fold_batchnorm},      // BatchNormalization into the Conv before it
      {"fuse_layer_norm", passes::fuse_layer_norm},    // a layer norm written out as seven nodes: one kernel
      {"fuse_attention",
       passes::fuse_attention},  // Transpose, MatMul, scale, mask, Softmax, MatMul, Transpose: one kernel
      {"fuse_epilogues", passes::fuse_epilogues},      // bias, relu, clip, residual add into conv2d_* / dense_*
      {"fuse_elementwise", passes::fuse_elementwise},  // what is left elementwise (GELU, scaling): one node per chain
      {"fuse_dense_activation", passes::fuse_dense_activation},  // a GELU chain into the dense before it
      {"pack_dense_weights",
       [&options](const Graph& g) {
         return options.blocked_layouts ? passes::pack_dense_weights(g, options.dense_panel, options.centered_int8) : g;
       }},  // constant dense weights as panels, once
      {"plan_layouts",
       [&options](const Graph& g) {
         return passes::plan_layouts(g, options);
       }},  // NCHWc between convolutions, weights packed once, each conv's algorithm
  };
}

}  // namespace

std::vector<std::string> pipeline_pass_names() {
  std::vector<std::string> names;
  for (const auto& p : pipeline(PlanOptions{}))
    if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
  return names;
}

Graph plan_graph(const Graph& imported, const PlanOptions& options, const GraphPassObserver& after_pass) {
  Graph g = imported;
  for (const auto& pass : pipeline(options)) {
    g = pass.run(g);
    try {
      g.check();
    } catch (const CompileError& e) {
      throw CompileError(std::string("pass ") + pass.name + " left a broken graph: " + e.what());
    }
    if (after_pass) after_pass(pass.name, g);
  }
  return g;
}

}  // namespace tf::graph

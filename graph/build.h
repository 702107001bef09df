// A planned graph into a compiled model (.tfm): every node lowered to a kernel call or an alias
// (kernel_calls.h), each distinct kernel compiled once with the config the caller chooses (the
// database's best, or the default), activations placed in one arena (memory_plan.h), constants
// packed after the kernels. The result loads with runtime/model alone.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/ops/operator.h"
#include "graph/graph.h"
#include "graph/kernel_calls.h"
#include "runtime/model/model_file.h"

namespace tf::graph {

struct BuiltKernel {
  std::string workload;    // "conv2d_bias_relu[1,64,56,56,...]"
  std::string shape_text;  // as `tunefarm run --shape` takes it
  std::string config;      // the config's JSON text
  bool tuned = false;      // the config came from the caller (the database), not the default
  std::string note;        // why a config the caller gave was not used
  std::vector<std::string> nodes;
  double compile_ms = 0;
};

struct BuildOptions {
  codegen::Target target;
  int threads = 1;  // recorded in the file: what the configs were tuned for
  // The config for a workload as JSON text, or nullopt for the default.
  std::function<std::optional<std::string>(const ops::Workload&)> config_for;
  // Distinct kernels compiled at once; 0: one per hardware thread.
  size_t compile_threads = 0;
  // Called as each distinct kernel is compiled (the i-th of n to finish, one call at a time), for
  // progress lines.
  std::function<void(size_t i, size_t n, const BuiltKernel&)> on_kernel;
  // How a node becomes a kernel call or an alias; unset: lower_node (kernel_calls.h).
  std::function<NodeLowering(const Graph&, const Node&)> lower;
};

struct BuildReport {
  std::vector<BuiltKernel> kernels;
  size_t steps = 0, aliases = 0;
  int64_t arena_bytes = 0, constant_bytes = 0;
};

// Throws CompileError naming the node (and its op) that has no kernel or whose workload is
// invalid, or whose kernel takes another element type than a value it is given holds.
runtime::model::ModelFile build_model(const Graph& planned, const BuildOptions& options, BuildReport* report = nullptr);

}  // namespace tf::graph

// The compiler's public face: a workload on a target, its config space, and builds of its configs.
// Everything outside compiler/ (the CLI, the tuner, the tracker's builders) goes through this.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/function.h"
#include "compiler/lower/lower.h"
#include "compiler/ops/operator.h"
#include "compiler/space/config_space.h"

namespace tf::compiler {

// "tunefarm 0.1.0 / LLVM 16.0.6": recorded with every measurement, so that a change in speed can be
// told apart from a change of compiler.
std::string version();

struct BuildTimes {
  double lower_ms = 0;    // schedule, bound inference, loop nest, passes
  double codegen_ms = 0;  // LLVM: IR, O3, machine code (and link, for a shared library)
};

class Task {
 public:
  // Throws tf::CompileError for an unknown op, bad extents or an unknown target.
  Task(ops::Workload workload, codegen::Target target);
  // An operator that is not in the registry (an elementwise chain a model built); its name() is
  // the workload's op. Throws tf::CompileError for bad extents.
  Task(std::shared_ptr<const ops::Operator> op, std::vector<int64_t> shape, codegen::Target target);
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  const ops::Workload& workload() const { return workload_; }
  const ops::Operator& op() const { return *op_; }
  const codegen::Target& target() const { return target_; }
  const space::ConfigSpace& space() const { return space_; }
  // "default", a config index, or a JSON object of knob values; CompileError when it is none.
  space::Config parse_config(const std::string& spec) const;
  // The kernel's symbol: "tf_dense_512x512x512"; an op name that is no identifier
  // ("elementwise[relu(x0)]") is replaced by its stem and a hash: "tf_elementwise_1f0c..._4x16".
  std::string kernel_name() const;
  // The kernel's argument types (inputs, then the output), as its placeholders declare them and its
  // entry checks them.
  std::vector<ir::DataType> argument_types() const;

  ir::LoweredFunc lower(const space::Config& cfg, lower::LowerStage stage = lower::LowerStage::Full,
                        BuildTimes* times = nullptr) const;
  ir::LoweredFunc lower(const space::Config& cfg, const lower::LowerOptions& opts, BuildTimes* times = nullptr) const;
  std::unique_ptr<codegen::JitKernel> build_jit(const space::Config& cfg, BuildTimes* times = nullptr,
                                                const codegen::CodegenOptions& opts = {}) const;
  codegen::SharedLibrary build_shared_library(const space::Config& cfg, BuildTimes* times = nullptr,
                                              const codegen::CodegenOptions& opts = {}) const;

 private:
  ops::Workload workload_;
  codegen::Target target_;
  std::shared_ptr<const ops::Operator> op_;
  space::ConfigSpace space_;
};

}  // namespace tf::compiler

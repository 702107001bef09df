// What plan_graph may decide differently from one build to another: the layouts, and which of a
// node's alternative kernels runs (by what the database measured).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "compiler/codegen/target.h"
#include "compiler/ops/operator.h"

namespace tf::graph {

struct PlanOptions {
  PlanOptions() = default;
  explicit PlanOptions(bool blocked) : blocked_layouts(blocked) {}

  // Blocked (NCHWc) activations between convolutions, conv and dense weights packed at build time.
  // Off: every conv stays on plain NCHW, every dense weight as [K, N] (what the test-only evaluator
  // reads).
  bool blocked_layouts = true;
  // Seconds per call of a workload's best measured config on the build's target (the database), or
  // nullopt. A node that can run as several kernels (kernel_alternatives.h) runs the fastest
  // measured one; with none measured, the default one (default_alternative).
  std::function<std::optional<double>(const ops::Workload&)> measured_seconds;
  // Channel blocks chosen for the whole graph from measured_seconds (passes/block_plan.h); off:
  // each conv's own (16 out, its input read as it is), whatever was measured.
  bool graph_layouts = true;
  // The width P of a constant dense weight's packed panels (pack_dense_weights), part of the dense
  // workloads: what the target's register tile reads (dense_panel_for).
  int64_t dense_panel = 32;
  // The target's vector registers: which conv algorithm runs by default where none was measured
  // (default_alternative).
  int vector_registers = 32;
  // Integer convs take their input bytes centred on 128 (qconv2d_nchwc_centered: half the multiply
  // steps where the target has no one-instruction 4-way dot product), where their weights allow.
  bool centered_int8 = false;
};

// Two of the target's vectors: a 6 x 2-vector tile keeps 12 accumulators, two panel rows and a
// broadcast in AVX2's 16 registers (P = 16), an 8 x 2 tile half of AVX-512's 32 (P = 32). Wider
// panels on AVX2 leave 2 x 4 tiles, a third slower on BERT's dense layers.
inline int64_t dense_panel_for(const codegen::Target& target) { return 2 * std::max(1, target.float32_lanes()); }

// The options a build for `target` plans with, before measured costs are added.
inline PlanOptions plan_options_for(const codegen::Target& target) {
  PlanOptions o;
  o.dense_panel = dense_panel_for(target);
  o.vector_registers = target.vector_registers;
  o.centered_int8 = codegen::prefers_centered_int8(target);
  return o;
}

}  // namespace tf::graph

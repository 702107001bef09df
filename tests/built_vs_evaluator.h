// A test model built the way a user's is (import, plan, default configs) against the test-only
// evaluator running its imported, unplanned graph: the worst relative difference over the outputs.
#pragma once

#include <algorithm>

#include "tests/graph_evaluator.h"
#include "tests/onnx_model_run.h"

namespace tf::graph::testing {

// Every input of the imported graph uniform in [lo, hi), one seed after another from `seed`.
inline Values random_inputs(const Graph& imported, uint32_t seed, float lo, float hi) {
  Values inputs;
  for (const auto& name : imported.inputs) inputs[name] = random_tensor(imported.value(name).shape, seed++, lo, hi);
  return inputs;
}

inline double built_vs_evaluated(const OnnxModelBuilder& b, const Values& inputs) {
  const Graph imported = import_onnx_bytes(b.bytes(), "test.onnx");
  FloatTensors feeds;
  for (const auto& [name, t] : inputs) feeds[name] = t.f32;
  const auto want = Evaluator(imported).run(inputs);
  const auto got = run_floats(b, feeds);
  double worst = 0;
  for (const auto& [name, t] : want) {
    Tensor ours = t;
    ours.f32 = got.at(name);
    worst = std::max(worst, max_relative_difference(ours, t));
  }
  return worst;
}

}  // namespace tf::graph::testing

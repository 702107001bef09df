#include "runtime/model/timing.h"

#include <algorithm>
#include <cstring>

#include "runtime/random_fill.h"
#include "support/stats.h"

namespace tf::runtime::model {

double ModelTiming::min_ms() const {
  return totals.empty() ? 0 : *std::min_element(totals.begin(), totals.end()) * 1e3;
}

double ModelTiming::median_ms() const { return totals.empty() ? 0 : median(totals) * 1e3; }

HostTensors fill_random_inputs(Executor& exec, uint64_t seed) {
  HostTensors filled;
  const auto inputs = exec.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    HostTensor t = HostTensor::zeros(inputs[i].dtype, inputs[i].shape);
    if (t.dtype == DType::Float32) {
      std::vector<float> data(static_cast<size_t>(t.elements()));
      fill_uniform(data.data(), t.elements(), input_seed(seed, static_cast<int>(i)));
      t = HostTensor::floats(inputs[i].shape, data);
    }
    if (!t.bytes.empty()) std::memcpy(exec.input_data(i), t.bytes.data(), t.bytes.size());
    filled[inputs[i].name] = std::move(t);
  }
  return filled;
}

ModelTiming time_model(Executor& exec, int runs, double min_seconds, int min_runs) {
  exec.run_plan();  // warm-up: pages the arena and the kernels in
  const size_t steps = exec.model().steps.size();
  ModelTiming t;
  t.per_step.resize(steps);
  std::vector<double> step_seconds;
  double spent = 0;
  auto more = [&] {
    const int done = static_cast<int>(t.totals.size());
    return runs > 0 ? done < runs : (spent < min_seconds || done < min_runs);
  };
  while (more()) {
    exec.run_plan(&step_seconds);
    double total = 0;
    for (size_t s = 0; s < steps; ++s) {
      t.per_step[s].push_back(step_seconds[s]);
      total += step_seconds[s];
    }
    t.totals.push_back(total);
    spent += total;
  }
  return t;
}

}  // namespace tf::runtime::model

#include "regress/model_regression.h"

#include <chrono>
#include <memory>
#include <sstream>

#include "compiler/compiler.h"
#include "db/process_identity.h"
#include "runtime/host_lock.h"
#include "runtime/model/executor.h"
#include "runtime/model/timing.h"
#include "runtime/thread_pool.h"
#include "support/stats.h"

namespace tf::regress {
namespace {

using runtime::model::Executor;
using runtime::model::ModelFile;

std::unique_ptr<Executor> ready(const ModelFile& model, int threads) {
  runtime::set_num_threads(threads);
  auto exec = std::make_unique<Executor>(model);
  runtime::model::fill_random_inputs(*exec);
  return exec;
}

double turn_seconds(Executor& exec, int runs) {
  return runtime::model::time_model(exec, runs, 0, 1).median_ms() * 1e-3;
}

// The kernels' workloads and configs: what decides whether the two builds differ.
std::string kernels_of(const ModelFile& m) {
  std::string all;
  for (const auto& k : m.kernels) all += k.workload + " " + k.config + "\n";
  return all;
}

ModelFile model_of(const std::vector<uint8_t>& tfm, const std::string& name) {
  std::istringstream in(std::string(tfm.begin(), tfm.end()));
  return runtime::model::read_model_file(in, tfm.size(), name);
}

double gflops(int64_t flops, const std::vector<double>& seconds) {
  const double t = median(seconds);
  return t > 0 ? static_cast<double>(flops) / t * 1e-9 : 0;
}

}  // namespace

std::vector<double> time_model_rounds(const ModelFile& model, const ModelTimingSettings& s) {
  auto exec = ready(model, s.threads);
  runtime::HostLock lock(s.lock_file);
  std::vector<double> out;
  out.reserve(s.rounds);
  for (int r = 0; r < s.rounds; ++r) out.push_back(turn_seconds(*exec, s.runs_per_turn));
  return out;
}

WorkloadVerdict compare_models(const db::ModelBaseline& baseline, const ModelFile& current, int64_t flops,
                               double threshold, const ModelTimingSettings& s) {
  const auto start = std::chrono::steady_clock::now();
  WorkloadVerdict v;
  v.name = baseline.model;
  v.workload_key = "model:" + baseline.model + (baseline.input_shapes.empty() ? "" : "[" + baseline.input_shapes + "]");
  v.threshold = threshold;
  v.baseline_compiler = baseline.compiler_version;
  v.current_compiler = compiler::version();
  v.device = "this process on " + db::ProcessIdentity::self().host + ", " + std::to_string(s.threads) + " thread(s)";
  std::unique_ptr<Executor> old_model, new_model;
  try {
    const ModelFile stored = model_of(baseline.tfm, "baseline '" + baseline.name + "'");
    v.config_changed = kernels_of(stored) != kernels_of(current);
    old_model = ready(stored, s.threads);
  } catch (const std::exception& e) {
    v.status = "failed";
    v.error = std::string("the baseline's model does not run here: ") + e.what();
    return v;
  }
  try {
    new_model = ready(current, s.threads);
  } catch (const std::exception& e) {
    v.status = "broken";
    v.error = std::string("the current model does not load: ") + e.what();
    return v;
  }
  std::vector<double> old_s, new_s;
  {
    runtime::HostLock lock(s.lock_file);
    for (int r = 0; r < s.rounds; ++r) {
      try {
        old_s.push_back(turn_seconds(*old_model, s.runs_per_turn));
      } catch (const std::exception& e) {
        v.status = "failed";
        v.error = std::string("the baseline's model failed: ") + e.what();
        return v;
      }
      try {
        new_s.push_back(turn_seconds(*new_model, s.runs_per_turn));
      } catch (const std::exception& e) {
        v.status = "broken";
        v.error = std::string("the current model failed: ") + e.what();
        return v;
      }
    }
  }
  v.ratio = paired_speed_ratio(old_s, new_s);
  v.status = verdict_name(decide(v.ratio, threshold));
  v.baseline_gflops = gflops(flops, old_s);
  v.current_gflops = gflops(flops, new_s);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return v;
}

}  // namespace tf::regress

#include "tracker/job_spec.h"

#include <cmath>
#include <sstream>

#include "compiler/error.h"
#include "compiler/ops/operator.h"
#include "proto/measure_wire.h"
#include "proto/utf8.h"
#include "runtime/measure.h"

namespace tf::tracker {
namespace {

grpc::Status invalid(const std::string& field, const std::string& why) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, field + ": " + why);
}

}  // namespace

bool valid_device_key(const std::string& key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

grpc::Status check_job_spec(v1::JobSpec* spec, const std::function<bool(const std::string&)>& key_known) {
  if (spec->workloads_size() == 0) return invalid("workloads", "a job needs at least one workload");
  if (spec->workloads_size() > 64)
    return invalid("workloads", "at most 64 per job, got " + std::to_string(spec->workloads_size()));
  for (int i = 0; i < spec->workloads_size(); ++i) {
    v1::Workload* w = spec->mutable_workloads(i);
    const std::string where = "workloads[" + std::to_string(i) + "]";
    if (w->dtype().empty()) w->set_dtype("float32");
    if (w->dtype() != "float32") return invalid(where + ".dtype", "'" + w->dtype() + "' is not supported (float32)");
    ops::Workload workload{w->op(), {w->shape().begin(), w->shape().end()}};
    try {
      ops::find_operator(w->op());
    } catch (const CompileError& e) {
      return invalid(where + ".op", e.what());
    }
    try {
      ops::check_workload(workload);
    } catch (const CompileError& e) {
      return invalid(where + ".shape", e.what());
    }
    const double flops = static_cast<double>(ops::find_operator(w->op()).flops(workload.shape));
    if (flops > kMaxWorkloadFlops) {
      std::ostringstream msg;
      msg << workload.str() << " is " << flops
          << " flops; the tracker computes each workload's reference output and allows at most " << kMaxWorkloadFlops;
      return invalid(where + ".shape", msg.str());
    }
  }
  if (spec->calls_size() != 0 && spec->calls_size() != spec->workloads_size()) {
    return invalid("calls", std::to_string(spec->calls_size()) + " given for " +
                                std::to_string(spec->workloads_size()) + " workloads (one per workload, or none)");
  }
  for (int i = 0; i < spec->calls_size(); ++i) {
    if (spec->calls(i) < 1 || spec->calls(i) > 1000000) {
      return invalid("workloads[" + std::to_string(i) + "].calls",
                     "must be 1 to 1000000, got " + std::to_string(spec->calls(i)));
    }
  }
  if (spec->groups_size() != 0 && spec->groups_size() != spec->workloads_size()) {
    return invalid("groups", std::to_string(spec->groups_size()) + " given for " +
                                 std::to_string(spec->workloads_size()) + " workloads (one per workload, or none)");
  }
  for (int i = 0; i < spec->groups_size(); ++i) {
    if (spec->groups(i) < 0 || spec->groups(i) > spec->workloads_size()) {
      return invalid(
          "workloads[" + std::to_string(i) + "].group",
          "must be 0 (none) to " + std::to_string(spec->workloads_size()) + ", got " + std::to_string(spec->groups(i)));
    }
  }
  if (!spec->scheduler().empty() && spec->scheduler() != "gradient" && spec->scheduler() != "even") {
    return invalid("scheduler", "'" + fleet::printable(spec->scheduler()) +
                                    "' is none of gradient, even (or empty: one workload after another)");
  }
  if (!(spec->time_limit_s() >= 0 && spec->time_limit_s() <= kMaxTimeLimitS)) {
    return invalid("time_limit_s", "must be 0 (none) to " + std::to_string(static_cast<int64_t>(kMaxTimeLimitS)) +
                                       " seconds, got " + std::to_string(spec->time_limit_s()));
  }
  if (spec->time_limit_s() > 0 && spec->scheduler().empty()) {
    return invalid("time_limit_s", "only a scheduled job (scheduler gradient or even) has a time limit");
  }
  if (spec->model().size() > 256)
    return invalid("model", "at most 256 bytes, got " + std::to_string(spec->model().size()));
  if (spec->input_shapes().size() > 4096) {
    return invalid("input_shapes", "at most 4096 bytes, got " + std::to_string(spec->input_shapes().size()));
  }
  if (spec->device_key().empty())
    return invalid("key", "missing: which boards should measure (see `tunefarm devices`)");
  if (!valid_device_key(spec->device_key())) {
    return invalid("key", "'" + fleet::printable(spec->device_key()) +
                              "' is not a device key (letters, digits, '.', '_', '-'; at most 64)");
  }
  if (!key_known(spec->device_key())) {
    return invalid("key",
                   "no board has ever registered with key '" + spec->device_key() + "' (see `tunefarm devices`)");
  }
  if (spec->trials() <= 0) return invalid("trials", "must be positive, got " + std::to_string(spec->trials()));
  if (spec->trials() > 1000000) {
    return invalid("trials", "at most 1000000 " + std::string(spec->scheduler().empty() ? "per workload" : "per job") +
                                 ", got " + std::to_string(spec->trials()));
  }
  if (spec->tuner().empty()) spec->set_tuner("xgb");
  if (spec->tuner() != "xgb" && spec->tuner() != "random" && spec->tuner() != "grid" && spec->tuner() != "ga") {
    return invalid("tuner", "unknown tuner '" + fleet::printable(spec->tuner()) + "' (tuners: xgb, random, grid, ga)");
  }
  if (spec->priority() == 0) spec->set_priority(1);
  if (spec->priority() < 1 || spec->priority() > 100)
    return invalid("priority", "must be 1 to 100, got " + std::to_string(spec->priority()));
  if (spec->seed() == 0) spec->set_seed(1);
  if (spec->batch() < 0 || spec->batch() > 4096) return invalid("batch", "must be 0 (the tuner's choice) to 4096");
  if (spec->batch() == 0) spec->set_batch(16);
  // A model's kernels are timed as the model runs them: each run's weights come from memory.
  if (spec->measure().cold_inputs() == v1::COLD_INPUTS_UNSPECIFIED) {
    spec->mutable_measure()->set_cold_inputs(spec->scheduler().empty() ? v1::COLD_INPUTS_OFF : v1::COLD_INPUTS_WEIGHTS);
  }
  if (std::string bad = runtime::measure_options_error(fleet::from_wire(spec->measure())); !bad.empty()) {
    return invalid("measure." + bad.substr(0, bad.find(':')), bad.substr(bad.find(':') + 2) + " (0: the default)");
  }
  return grpc::Status::OK;
}

}  // namespace tf::tracker

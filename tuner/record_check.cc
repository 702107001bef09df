#include "tuner/record_check.h"

#include "runtime/timing_check.h"

namespace tf::tuner {

std::string RecordChecker::problem(const db::Measurement& m) {
  if (m.dtype != "float32") return "workload dtype '" + m.dtype + "' is not supported (float32 only)";
  const std::string key = m.workload_key() + "|" + m.target;
  if (auto e = task_errors_.find(key); e != task_errors_.end()) return e->second;
  auto it = tasks_.find(key);
  if (it == tasks_.end()) {
    try {
      auto task = std::make_unique<compiler::Task>(ops::Workload{m.op, m.shape}, codegen::parse_target(m.target));
      it = tasks_.emplace(key, std::move(task)).first;
    } catch (const std::exception& e) {
      return task_errors_[key] = "workload " + m.workload_key() + " on target '" + m.target + "': " + e.what();
    }
  }
  try {
    it->second->space().from_json(m.config);
  } catch (const std::exception& e) {
    return "config " + m.config.dump() + ": " + e.what();
  }
  if (m.outcome == db::Outcome::Ok) {
    const std::string why = runtime::timing_problem(m.costs);
    if (!why.empty()) return "costs: " + why;
  }
  return "";
}

}  // namespace tf::tuner

#include "builder/build_request.h"

#include <chrono>

#include "compiler/codegen/target.h"
#include "runtime/host_lock.h"

namespace tf::builder {

std::shared_ptr<const compiler::Task> RequestBuilder::task_for(const v1::BuildRequest& request) {
  const ops::Workload workload{request.workload().op(),
                               {request.workload().shape().begin(), request.workload().shape().end()}};
  const std::string key = workload.str() + "|" + request.target();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = tasks_.begin(); it != tasks_.end(); ++it) {
      if (it->first != key) continue;
      tasks_.splice(tasks_.begin(), tasks_, it);
      return tasks_.front().second;
    }
  }
  // Built outside the lock: a config space can take a while, and other requests need not wait.
  auto task = std::make_shared<const compiler::Task>(workload, codegen::parse_target(request.target()));
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.emplace_front(key, task);
  while (tasks_.size() > tasks_kept_) tasks_.pop_back();
  return task;
}

v1::BuildResult RequestBuilder::build(const v1::BuildRequest& request) {
  v1::BuildResult result;
  result.set_build_id(request.build_id());
  runtime::HostLock turn(timing_lock_, runtime::HostLock::Mode::Shared);
  const auto start = std::chrono::steady_clock::now();
  try {
    const std::shared_ptr<const compiler::Task> task = task_for(request);
    const codegen::SharedLibrary lib = task->build_shared_library(task->space().at(request.config_index()));
    result.set_library(lib.bytes.data(), lib.bytes.size());
    result.set_entry_symbol(lib.entry_symbol);
  } catch (const std::exception& e) {
    result.set_error(e.what());
  }
  result.set_build_ms(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return result;
}

}  // namespace tf::builder

// What a builder does with one request: the workload's kernel for the config, compiled for the
// target, as the shared library a board loads; or the compile error. The workload's task (its config
// space, built once) is kept for the next request of the same workload and target.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "compiler/compiler.h"
#include "proto/tunefarm.pb.h"

namespace tf::builder {

namespace v1 = ::tunefarm::v1;

class RequestBuilder {
 public:
  // `timing_lock`: the host-wide lock boards on this host time under; each build holds it shared,
  // so that a build never overlaps a board's timing (empty: none).
  explicit RequestBuilder(std::string timing_lock = "", size_t tasks_kept = 64)
      : timing_lock_(std::move(timing_lock)), tasks_kept_(tasks_kept) {}
  // Never throws: what cannot be built is the result's error.
  v1::BuildResult build(const v1::BuildRequest& request);

 private:
  std::shared_ptr<const compiler::Task> task_for(const v1::BuildRequest& request);

  std::string timing_lock_;
  size_t tasks_kept_;
  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<const compiler::Task>>> tasks_;  // most recent first
};

}  // namespace tf::builder

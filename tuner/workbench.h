// Where a tuning job's candidates are built and measured: the builder and measurer it was given (the
// tracker's builder pool and the boards of the job's key), or its own on this host.
//
// A build on a core the timed kernel runs on slows the kernel down (on another core it costs ~1.5%
// here: shared caches and memory). A local job's builders use every core between its timings and
// stay off the kernel's cores during each (TimingCores: moved off them, or waiting when the kernel
// needs every core), while loading, checking and recording still overlap the builds.
#pragma once

#include <memory>
#include <string>

#include "tuner/builder.h"
#include "tuner/measurer.h"
#include "tuner/timing_cores.h"
#include "tuner/tune_job.h"

namespace tf::tuner {

class Workbench {
 public:
  explicit Workbench(const TuneOptions& opts);
  Builder& builder() const { return *builder_; }
  Measurer& measurer() const { return *measurer_; }
  // How a local job keeps its timings from overlapping builds, for the output; empty when measured
  // elsewhere.
  const std::string& timing_isolation() const { return timing_isolation_; }
  // A measurer in a fresh worker process on this host, set up with `setup`; null when the job is
  // measured elsewhere (its measurer then measures again too).
  std::unique_ptr<Measurer> fresh_local_measurer(const runtime::WorkloadSetup& setup) const;

 private:
  std::string worker_path_;
  int threads_;
  std::shared_ptr<TimingCores> cores_;  // null: measured elsewhere
  std::unique_ptr<Builder> own_builder_;
  Builder* builder_ = nullptr;
  std::unique_ptr<Measurer> own_measurer_;
  Measurer* measurer_ = nullptr;
  std::string timing_isolation_;
};

}  // namespace tf::tuner

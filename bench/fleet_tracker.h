// A tracker process for the fleet benchmarks (bench/fleet_bench.cc, bench/fleet_builders.cc): started
// on a free loopback port with its own db, a client stub to run jobs on it, and its CPU time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "proto/tunefarm.grpc.pb.h"
#include "support/subprocess.h"

namespace tf::bench {

namespace v1 = ::tunefarm::v1;

bool wait_until(const std::function<bool()>& ok, double seconds);

class BenchTracker {
 public:
  // Throws std::runtime_error with the tracker's output when it does not start.
  BenchTracker(const std::string& dir, const std::string& db, int build_threads,
               const std::vector<std::string>& extra = {});
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  v1::Tuning::Stub& stub() { return *stub_; }
  int devices(const std::string& key);
  // Submits and waits for the end; returns the job (throws unless it is done).
  v1::Job run(const v1::JobSpec& spec);
  // User plus system CPU seconds the tracker process has used so far.
  double cpu_seconds() const;

 private:
  int port_;
  std::unique_ptr<Subprocess> process_;
  std::unique_ptr<v1::Tuning::Stub> stub_;
};

// A random-tuner (seed 1) dense job: the same candidates on every run of the same spec.
v1::JobSpec dense_spec(const std::string& key, std::vector<int64_t> shape, int64_t trials, int batch, double min_ms,
                       uint64_t seed = 1);

}  // namespace tf::bench

// ONNX Runtime (CPU), the peer compiled models are checked and timed against: bench/ort/ort_run.js
// run as a child process on .npy inputs, its outputs written as .npy and its latency reported.
// Used by tests/model_vs_ort_test.cc and bench/models_bench.cc.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/host_tensor.h"

namespace tf::bench {

// Why ONNX Runtime cannot run here (node not on PATH, bench/ort/node_modules missing), each ending
// in "run scripts/setup.sh"; "" when it can.
std::string ort_setup_problem();

struct OrtOptions {
  std::string model;                          // the .onnx file
  std::map<std::string, std::string> inputs;  // input name -> .npy file
  std::string work_dir;                       // outputs, the report and the log go here
  int threads = 1;
  int runs = 1;
  int warmup = 0;
  int timeout_seconds = 300;
  // "all" (what users run), or "disabled": each node as ONNX defines it, a QDQ model's
  // quantization in float rather than fused into integer kernels.
  std::string graph_optimization = "all";
};

struct OrtResult {
  std::string version;
  double latency_ms = 0, median_ms = 0;             // min and median over the runs
  std::vector<double> times_ms;                     // every run, sorted
  std::map<std::string, std::string> output_files;  // output name -> .npy file
};

// Throws std::runtime_error with the script's output when it fails or outlives the timeout.
OrtResult run_ort(const OrtOptions& options);

// max|got - want| / max|want|: how a model's output is compared with the peer's (one number per
// output, insensitive to where the values are small). Sizes must agree.
double max_relative_difference(const std::vector<float>& got, const std::vector<float>& want);
// The same for tensors of any dtype, compared as values; std::invalid_argument when their dtypes
// or sizes differ.
double max_relative_difference(const HostTensor& got, const HostTensor& want);

}  // namespace tf::bench

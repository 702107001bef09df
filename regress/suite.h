// A regression suite: the workloads a CI run checks, where, and how strictly. Read from a JSON file
// (docs/ci.md; a sample at bench/suites/ci.json):
//   {"key": "local-fleet",                      optional: device key of the boards (--tracker)
//    "target": "llvm",                          optional: the target of --local runs
//    "threads": 1,                              optional: threads of each kernel in --local runs
//    "threshold": 0.05,                         optional: default for every workload
//    "rounds": 15,                              optional: interleaved rounds per workload
//    "workloads": [{"name": "gemm-256", "op": "dense", "shape": [256, 256, 256], "threshold": 0.05}]}
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ops/operator.h"

namespace tf::regress {

// A suite that cannot be used; the message names the file and the field.
class SuiteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SuiteWorkload {
  std::string name;
  ops::Workload workload;
  std::optional<double> threshold;  // a fraction, e.g. 0.05
};

struct Suite {
  std::string path;
  std::string key, target;
  int threads = 1;
  std::optional<double> threshold;
  int rounds = 15;
  std::vector<SuiteWorkload> workloads;

  // The threshold that applies to `w`: the command line's when given, else the workload's, the
  // suite's, or 5%.
  double threshold_for(const SuiteWorkload& w, std::optional<double> command_line) const;
};

Suite parse_suite(const std::string& text, const std::string& path);  // throws SuiteError
Suite load_suite(const std::string& path);                            // throws SuiteError

// "5%", "0.05" -> 0.05. Throws SuiteError unless 0 < threshold < 1.
double parse_threshold(const std::string& text, const std::string& what);
void check_threshold(double t, const std::string& what);

}  // namespace tf::regress

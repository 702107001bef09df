// The gradient task scheduler against the even split on one model, from an empty db each: the
// model's estimated latency after every batch and its measured latency every few hundred trials,
// as rows, a target (gradient reaches the even split's final measured latency in at most 60% of
// its trials) and one plot.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bench/bench_util.h"
#include "graph/graph.h"
#include "runtime/model/executor.h"

namespace tf::bench {

struct SchedulerComparison {
  std::string model;
  int threads = 1;
  int64_t trials = 2000, checkpoint = 200;
  std::string target = "native";
  double min_repeat_ms = 20;
  std::string work_dir;  // the two scratch dbs
  std::string svg_path;  // the plot
};

// Appends the comparison's rows to `rows` and its target to `targets`. `measure` times a built model
// (median ms).
void compare_schedulers(const graph::Graph& imported, const SchedulerComparison& c,
                        const std::function<double(runtime::model::Executor&)>& measure, Json& rows, Targets& targets);

}  // namespace tf::bench

// `tunefarm model tune`: what its two halves share. On this host (cmd_model_tune.cc) the job runs
// in this process; on a fleet (model_tune_fleet.cc) it is one job of the tracker's.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/input_shape_args.h"
#include "cli/tracker_client.h"
#include "graph/tasks.h"
#include "support/json.h"
#include "support/measure_args.h"

namespace tf::cli {

struct ModelTuneArgs {
  std::string model_path;
  MeasureArgs measure = [] {
    MeasureArgs m;
    m.trials = 2000;            // for the whole model
    m.cold_inputs = "weights";  // each kernel's weights from memory, as the model reads them
    return m;
  }();
  std::string scheduler = "gradient";
  double time_limit_s = 0;  // no batch starts after it; 0: none
  // "graph": each blocked conv's channel blocks are alternatives and the conversions between them
  // are measured, so `model build` plans the blocks for the whole graph (graph/passes/block_plan.h);
  // "per-conv": the blocks each conv takes alone (16 out), only its algorithms tuned.
  std::string layouts = "per-conv";
  InputShapeArgs shapes;  // the model's input shapes
  int threads = 1;        // on this host: the kernels' threads
  std::string target = "native";
  std::string db_path = "tunefarm.db";
  TrackerArgs tracker;  // with --key: tune on the fleet
  std::string key;      // the boards' key
  int priority = 1;
  bool as_json = false, quiet = false;
};

struct ModelTuneResult {
  struct TaskRow {
    std::string op, shape_text, workload;
    int64_t calls = 1, trials = 0;
    int group = 0;                        // tasks of one group >= 1 are alternative kernels of the same nodes; 0: none
    double best_ms = 0, best_gflops = 0;  // per call; 0: nothing correct
    double in_model_scale = 1;            // a call's time inside the model over its time alone
    double measured_in_model_ms = 0;      // a call's time in the tuned build timed at the end; 0: not timed
    Json best_config;
  };
  std::string model, where, scheduler, state;
  bool out_of_time = false;  // the time limit ended the search before the budget was spent
  Json input_shapes;         // the inputs as bound: {"image": [1,3,640,640]}
  std::string inputs_text;   // the same as --input-shape takes it
  std::string target;        // the kernels were built for
  int64_t job_id = 0, trials = 0, budget = 0;
  double estimated_ms = 0, seconds = 0;
  // On this host: the untuned nodes and layout transforms, measured once before the search (part of
  // estimated_ms), and the model built from the db at the end and timed; 0 where not measured.
  double other_nodes_ms = 0, measured_ms = 0;
  int in_model_timings = 0;  // checkpoints at which the model was built with the bests so far and timed
  // The default build's latency before the search and again beside the tuned build at the end: their
  // ratio is how much the machine's speed drifted in between, which no estimate can foresee.
  double default_before_ms = 0, default_after_ms = 0;
  double machine_drift() const {
    return default_before_ms > 0 && default_after_ms > 0 ? default_after_ms / default_before_ms : 1;
  }
  std::vector<TaskRow> tasks;
  std::vector<std::pair<int64_t, double>> curve;  // (trials, estimated ms) after each batch
  // On this host: where the wall time went, seconds per phase in the order they happen.
  std::vector<std::pair<std::string, double>> time_spent;
};

// A task's row before its best is known.
ModelTuneResult::TaskRow task_row(const graph::Task& t, int64_t trials);
// What is tuned: the model's tunable tasks after the graph passes, and its inputs as bound (part of
// what identifies the job: a model tuned at 640x640 is another job than at 320x320).
struct ModelTasks {
  graph::Graph imported;
  std::vector<graph::Task> tasks;
  Json input_shapes;        // {"image": [1,3,640,640]}
  std::string inputs_text;  // "image=1,3,640,640"
};
// UsageError when the model has no tunable task.
ModelTasks model_tasks(const ModelTuneArgs& a);
ModelTuneResult tune_model_locally(const ModelTuneArgs& a, const ModelTasks& m);
// 0, or the exit code of a call the tracker refused or could not answer (the message printed).
int tune_model_on_fleet(const ModelTuneArgs& a, const ModelTasks& m, ModelTuneResult* out);
void print_model_tune_result(const ModelTuneResult& r, bool as_json);

}  // namespace tf::cli

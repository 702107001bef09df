// A model's distinct kernels tuned on this host as one job with one trial budget (tuner/tune_tasks.h):
// what `tunefarm model tune` runs without --key and what tunefarm.tune_model runs from Python. The
// task scheduler puts each batch where it cuts the model's estimated latency most; the untuned nodes
// are timed once before the search, and the tuned model is built from the db and timed at the end.
// A job of the same tasks and settings that did not finish is resumed: its trials count.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "db/database.h"
#include "graph/graph.h"
#include "graph/onnx_import.h"
#include "graph/tasks.h"
#include "runtime/measure.h"
#include "support/json.h"
#include "support/measure_args.h"
#include "tuner/tune_tasks.h"

namespace tf::graph {

// What the caller can fix: a model with nothing to tune, measure options out of range.
class ModelTuneError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ModelTuneOptions {
  std::string model_path;
  ImportOptions import;  // the model's input shapes as bound
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
  int threads = 1;  // the kernels' threads on this host
  std::string target = "native";
  // A board times the kernels a job calls: the layout conversions (count 0) are left to their estimate.
  bool for_boards = false;
  std::string timing_lock = runtime::MeasureOptions{}.timing_lock;  // held while this host times
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
ModelTuneResult::TaskRow task_row(const Task& t, int64_t trials);

// What is tuned: the model's tunable tasks after the graph passes, and its inputs as bound (part of
// what identifies the job: a model tuned at 640x640 is another job than at 320x320).
struct ModelTasks {
  Graph imported;
  std::vector<Task> tasks;
  Json input_shapes;        // {"image": [1,3,640,640]}
  std::string inputs_text;  // "image=1,3,640,640"
};
// ModelTuneError when the model has no tunable task; CompileError for a model that does not import.
ModelTasks model_tasks(const ModelTuneOptions& o);
// The same for a model imported already (o.model_path only names it).
ModelTasks model_tasks(Graph imported, const ModelTuneOptions& o);

struct ModelTuneHooks {
  // A line about the job (its id, the default build's time); `detail`: one a quiet caller skips.
  std::function<void(const std::string& line, bool detail)> note;
  // After each batch of trials, and once at the start of a resumed job.
  std::function<void(const tuner::TasksProgress& p, double other_nodes_ms)> progress;
  // Set by the caller to end the search: the job ends "cancelled" with the bests so far recorded.
  const std::atomic<bool>* stop = nullptr;
};

// Records every trial in `db` under a job of its own (created, or the unfinished one adopted).
// ModelTuneError for measure options out of range.
ModelTuneResult tune_model_locally(const ModelTuneOptions& o, const ModelTasks& m, db::Database& db,
                                   const ModelTuneHooks& hooks = {});

// The result as `model tune --json` prints it and tunefarm.tune_model returns it.
Json model_tune_result_json(const ModelTuneResult& r);

}  // namespace tf::graph

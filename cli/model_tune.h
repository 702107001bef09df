// `tunefarm model tune`: what its two halves share. On this host (cmd_model_tune.cc) the job runs
// in this process; on a fleet (model_tune_fleet.cc) it is one job of the tracker's.
#pragma once

#include <string>

#include "cli/input_shape_args.h"
#include "cli/tracker_client.h"
#include "graph/model_tune.h"

namespace tf::cli {

// The command line of `model tune`: what graph::tune_model_locally takes, and the fleet's side.
struct ModelTuneArgs {
  graph::ModelTuneOptions tune;
  InputShapeArgs shapes;  // the model's input shapes, as typed (tune.import once bound)
  TrackerArgs tracker;    // with --key: tune on the fleet
  std::string db_path = "tunefarm.db";
  std::string key;  // the boards' key
  int priority = 1;
  bool as_json = false, quiet = false;
};

using graph::ModelTasks;
using graph::ModelTuneResult;

// 0, or the exit code of a call the tracker refused or could not answer (the message printed).
int tune_model_on_fleet(const ModelTuneArgs& a, const ModelTasks& m, ModelTuneResult* out);

}  // namespace tf::cli

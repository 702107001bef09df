// How the model commands (inspect, build, tune) bind an ONNX model's symbolic input extents:
// --input-shape NAME=1,3,640,640 (once per input, a full shape) and --batch N (extent 0 of every
// input not given in full). What they bind is part of what identifies a tuned or built model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/onnx_import.h"
#include "support/args.h"
#include "support/json.h"

namespace tf::cli {

struct InputShapeArgs {
  std::vector<std::string> shapes;  // NAME=LIST, as typed
  int64_t batch = 0;                // 0: not given
};

void add_input_shape_options(CLI::App& cmd, InputShapeArgs& a);

// UsageError naming the flag: a NAME=LIST without '=', an empty name or list, a control character,
// an extent that is not a positive integer (or beyond int64), one input given twice.
graph::ImportOptions import_options(const InputShapeArgs& a);

// The options as given, to repeat in a command line: " --input-shape image=1,3,640,640 --batch 2"
// ("" when none was given).
std::string shape_flags(const InputShapeArgs& a);

}  // namespace tf::cli

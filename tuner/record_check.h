// An imported record is checked the way a measured one is: its op exists, its shape is valid for
// the op, its target parses, every knob of its config exists and holds one of the space's choices,
// and a successful record's timings pass runtime/timing_check.h. A record that fails would become
// a `best` nothing can build or run.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "compiler/compiler.h"
#include "db/database.h"

namespace tf::tuner {

class RecordChecker {
 public:
  // Empty when the record may be stored; otherwise why not, naming the field.
  std::string problem(const db::Measurement& m);

 private:
  // One task per workload and target: building a config space is not free, and an import of a
  // farm's records repeats the same few thousand times.
  std::map<std::string, std::unique_ptr<compiler::Task>> tasks_;
  std::map<std::string, std::string> task_errors_;
};

}  // namespace tf::tuner

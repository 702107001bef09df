// The JSON forms of the wire messages that people and scripts see: job files (`tunefarm submit
// --job job.json`), the job spec the tracker stores in the db, and `--json` output of the CLI.
// Field names are snake_case and states are lower case ("queued"), as everywhere in tunefarm.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "proto/tunefarm.pb.h"
#include "support/json.h"

namespace tf::fleet {

namespace v1 = ::tunefarm::v1;

// A job file or a stored spec that is malformed; the message names the field ("workloads[1].shape: ...").
class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// {"workloads": [{"op": "dense", "shape": [512, 512, 512]}], "key": "x86", "trials": 64,
//  "tuner": "xgb", "priority": 1, "seed": 1, "batch": 0,
//  "measure": {"repeat": 3, "number": 0, "min_repeat_ms": 20, "flush_cache": false,
//              "cooldown_ms": 0, "timeout_s": 10, "cold_inputs": "weights"}}
// Checks the JSON's shape (kinds, unknown fields); what the values mean is the tracker's to check.
// A workload's shape is a list of extents; with a ShapeReader (the tracker's knows the ops, a
// board's does not) it may also be named, "n=1,c=64,..." or {"n": 1, ...}.
// The reader returns the positional extents or throws std::exception naming `where`.
using ShapeReader =
    std::function<std::vector<int64_t>(const std::string& op, const Json& shape, const std::string& where)>;
v1::JobSpec job_spec_from_json(const Json& v, const ShapeReader& read_shape = {});
// SpecError for text that is not JSON, too, or beyond kJobSpecJsonLimits ("job spec: nesting deeper
// than 64 levels").
v1::JobSpec job_spec_from_text(const std::string& text, const ShapeReader& read_shape = {});
Json job_spec_to_json(const v1::JobSpec& spec);

Json workload_to_json(const v1::Workload& w);
// A workload's progress: workload_key, state, trials, trials_done, ok, failed, best_gflops and
// best_config (an object, or the raw text when it is not JSON).
Json workload_progress_to_json(const v1::WorkloadProgress& p);
Json job_to_json(const v1::Job& job);
Json device_to_json(const v1::Device& d);

const char* job_state_name(v1::JobState s);  // "queued", "running", "done", "failed", "cancelled"
std::optional<v1::JobState> parse_job_state(const std::string& s);

}  // namespace tf::fleet

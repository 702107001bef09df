// A job file (`tunefarm submit --job F`): the client fills in its command-line options
// (proto/job_file.h), then the tracker reads the JSON (proto/json_convert.h, with the tracker's named
// shapes) and checks the spec (tracker/job_spec.h). Refusals are SpecError (JsonLimitError from the
// client, for text beyond the job-spec limits) or a non-OK status, each naming the field.
#include "compiler/ops/shape_json.h"
#include "fuzz/fuzz_check.h"
#include "proto/job_file.h"
#include "proto/json_convert.h"
#include "tracker/job_spec.h"

namespace {

tf::fleet::JobFileOptions command_line_options() {
  tf::fleet::JobFileOptions o;
  o.key = "local-fleet";
  o.trials = 64;
  o.tuner = "random";
  o.priority = 2;
  o.seed = 7;
  o.min_repeat_ms = 5;
  o.repeat = 3;
  o.timeout_s = 10;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  static const fleet::JobFileOptions given = command_line_options();
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_refusal_or_success<fleet::SpecError>([&] {
    fleet::FilledJobFile filled;
    try {
      filled = fleet::fill_job_file(text, given);
    } catch (const JsonLimitError& e) {
      throw fleet::SpecError(e.what());  // the client refuses what the tracker would, with the same message
    }
    tunefarm::v1::JobSpec spec = fleet::job_spec_from_text(filled.text, ops::shape_from_json);
    const grpc::Status status = tracker::check_job_spec(&spec, [](const std::string& key) { return key != "unknown"; });
    if (!status.ok() && status.error_message().empty()) fuzz::finding("check_job_spec refused without a message");
    // What the tracker accepted is stored as JSON and read back when it restarts (job_manager.cc).
    if (status.ok()) fleet::job_spec_from_json(fleet::job_spec_to_json(spec));
  });
  return 0;
}

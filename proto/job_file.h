// `tunefarm submit --job F`: the job file as sent to the tracker, with the options given on the
// command line filling in the fields the file leaves out (docs/tracker.md, "Job files"). The
// file wins where it sets a field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tf::fleet {

// The options given on the command line; unset: not given.
struct JobFileOptions {
  std::optional<std::string> key, tuner, cold_inputs;
  std::optional<int64_t> trials, priority;
  std::optional<uint64_t> seed;
  std::optional<double> min_repeat_ms, timeout_s;
  std::optional<int> repeat;
};

struct FilledJobFile {
  std::string text;                     // what to send: the tracker checks it
  std::vector<std::string> overridden;  // options the file sets itself ("--trials"), which it wins
};

// Text that is not a JSON object goes as it is, for the tracker to say what is wrong with it. Text
// beyond kJobSpecJsonLimits (support/json.h), which the tracker would refuse too, throws
// JsonLimitError.
FilledJobFile fill_job_file(const std::string& text, const JobFileOptions& given);

}  // namespace tf::fleet

#include "cli/job_file.h"

#include "support/json.h"

namespace tf::cli {
namespace {

// Sets obj[field] to `value` unless the file has it; says so in `overridden` when it does.
template <typename T>
void fill(json::Value& obj, const std::string& field, const std::optional<T>& value, const std::string& option,
          std::vector<std::string>& overridden, const std::string& alias = "") {
  if (!value) return;
  if (obj.find(field) || (!alias.empty() && obj.find(alias))) {
    overridden.push_back(option);
    return;
  }
  obj.set(field, *value);
}

}  // namespace

FilledJobFile fill_job_file(const std::string& text, const JobFileOptions& given) {
  FilledJobFile out{text, {}};
  json::Value job;
  try {
    job = json::parse(text);
  } catch (const std::exception&) {
    return out;
  }
  if (!job.is_object()) return out;
  fill(job, "key", given.key, "--key", out.overridden, "device_key");
  fill(job, "trials", given.trials, "--trials", out.overridden);
  fill(job, "tuner", given.tuner, "--tuner", out.overridden);
  fill(job, "priority", given.priority, "--priority", out.overridden);
  fill(job, "seed", given.seed ? std::optional<int64_t>(static_cast<int64_t>(*given.seed)) : std::nullopt, "--seed", out.overridden);
  const bool any_measure = given.min_repeat_ms || given.repeat || given.timeout_s;
  if (any_measure) {
    const json::Value* file_measure = job.find("measure");
    if (file_measure && !file_measure->is_object()) return out;  // malformed: the tracker says so
    json::Value measure = file_measure ? *file_measure : json::Value::object();
    fill(measure, "min_repeat_ms", given.min_repeat_ms, "--min-ms", out.overridden);
    fill(measure, "repeat", given.repeat ? std::optional<int64_t>(*given.repeat) : std::nullopt, "--repeat", out.overridden);
    fill(measure, "timeout_s", given.timeout_s, "--timeout", out.overridden);
    job.set("measure", measure);
  }
  out.text = job.dump();
  return out;
}

}  // namespace tf::cli

#include "proto/job_file.h"

#include "support/json.h"

namespace tf::fleet {
namespace {

// Sets obj[field] to `value` unless the file has it; says so in `overridden` when it does.
template <typename T>
void fill(Json& obj, const std::string& field, const std::optional<T>& value, const std::string& option,
          std::vector<std::string>& overridden, const std::string& alias = "") {
  if (!value) return;
  if (obj.contains(field) || (!alias.empty() && obj.contains(alias))) {
    overridden.push_back(option);
    return;
  }
  obj[field] = *value;
}

}  // namespace

FilledJobFile fill_job_file(const std::string& text, const JobFileOptions& given) {
  FilledJobFile out{text, {}};
  Json job;
  try {
    job = parse_json(text, kJobSpecJsonLimits);
  } catch (const JsonLimitError&) {
    throw;
  } catch (const std::exception&) {
    return out;
  }
  if (!job.is_object()) return out;
  fill(job, "key", given.key, "--key", out.overridden, "device_key");
  fill(job, "trials", given.trials, "--trials", out.overridden);
  fill(job, "tuner", given.tuner, "--tuner", out.overridden);
  fill(job, "priority", given.priority, "--priority", out.overridden);
  fill(job, "seed", given.seed ? std::optional<int64_t>(static_cast<int64_t>(*given.seed)) : std::nullopt, "--seed",
       out.overridden);
  const bool any_measure = given.min_repeat_ms || given.repeat || given.timeout_s || given.cold_inputs;
  if (any_measure) {
    const bool file_has_measure = job.contains("measure");
    if (file_has_measure && !job["measure"].is_object()) return out;  // malformed: the tracker says so
    Json measure = file_has_measure ? job["measure"] : Json::object();
    fill(measure, "min_repeat_ms", given.min_repeat_ms, "--min-ms", out.overridden);
    fill(measure, "repeat", given.repeat ? std::optional<int64_t>(*given.repeat) : std::nullopt, "--repeat",
         out.overridden);
    fill(measure, "timeout_s", given.timeout_s, "--timeout", out.overridden);
    fill(measure, "cold_inputs", given.cold_inputs, "--cold-inputs", out.overridden);
    job["measure"] = measure;
  }
  out.text = job.dump();
  return out;
}

}  // namespace tf::fleet

#include "proto/json_convert.h"

#include <limits>
#include <set>

#include "proto/measure_wire.h"
#include "proto/utf8.h"

namespace tf::fleet {
namespace {

void check_fields(const Json& v, const std::string& where, const std::set<std::string>& known) {
  if (!v.is_object()) throw SpecError(where + ": expected an object, got " + json_kind(v));
  for (const auto& [key, value] : v.items()) {
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw SpecError((where.empty() ? "" : where + ".") + key + ": unknown field (known: " + list + ")");
    }
  }
}

std::string path(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

int64_t get_int(const Json& v, const std::string& where) {
  if (!v.is_number_integer())
    throw SpecError(where + ": expected an integer, got " + (v.is_number() ? "a fraction" : json_kind(v)));
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    throw SpecError(where + ": " + v.dump() + " is out of range");
  }
  return v.get<int64_t>();
}

double get_number(const Json& v, const std::string& where) {
  if (!v.is_number()) throw SpecError(where + ": expected a number, got " + json_kind(v));
  return v.get<double>();
}

std::string get_string(const Json& v, const std::string& where) {
  if (!v.is_string()) throw SpecError(where + ": expected a string, got " + json_kind(v));
  return v.get<std::string>();
}

bool get_bool(const Json& v, const std::string& where) {
  if (!v.is_boolean()) throw SpecError(where + ": expected true or false, got " + json_kind(v));
  return v.get<bool>();
}

// The member `key` of object `v`, or null when it has none.
const Json* member(const Json& v, const char* key) {
  const auto it = v.find(key);
  return it == v.end() ? nullptr : &*it;
}

int32_t get_int32(const Json& v, const std::string& where) {
  const int64_t i = get_int(v, where);
  if (i < INT32_MIN || i > INT32_MAX) throw SpecError(where + ": " + std::to_string(i) + " is out of range");
  return static_cast<int32_t>(i);
}

v1::ColdInputs cold_inputs_from_json(const Json& v, const std::string& where) {
  runtime::ColdInputs c = runtime::ColdInputs::Off;
  if (!v.is_string() || !runtime::parse_cold_inputs(v.get<std::string>(), &c)) {
    throw SpecError(where + ": expected \"off\", \"weights\" or \"all\", got " +
                    (v.is_string() ? "'" + printable(v.get<std::string>()) + "'" : json_kind(v)));
  }
  return to_wire(c);
}

v1::MeasureOptions measure_from_json(const Json& v, const std::string& where) {
  check_fields(v, where,
               {"repeat", "number", "min_repeat_ms", "flush_cache", "cooldown_ms", "timeout_s", "cold_inputs"});
  v1::MeasureOptions m;
  if (const auto* f = member(v, "repeat")) m.set_repeat(get_int32(*f, path(where, "repeat")));
  if (const auto* f = member(v, "number")) m.set_number(get_int32(*f, path(where, "number")));
  if (const auto* f = member(v, "min_repeat_ms")) m.set_min_repeat_ms(get_number(*f, path(where, "min_repeat_ms")));
  if (const auto* f = member(v, "flush_cache")) m.set_flush_cache(get_bool(*f, path(where, "flush_cache")));
  if (const auto* f = member(v, "cooldown_ms")) m.set_cooldown_ms(get_number(*f, path(where, "cooldown_ms")));
  if (const auto* f = member(v, "timeout_s")) m.set_timeout_s(get_number(*f, path(where, "timeout_s")));
  if (const auto* f = member(v, "cold_inputs"))
    m.set_cold_inputs(cold_inputs_from_json(*f, path(where, "cold_inputs")));
  return m;
}

}  // namespace

v1::JobSpec job_spec_from_json(const Json& v, const ShapeReader& read_shape) {
  check_fields(v, "job",
               {"workloads", "key", "device_key", "trials", "tuner", "priority", "seed", "batch", "measure",
                "scheduler", "model", "input_shapes", "time_limit_s"});
  v1::JobSpec spec;
  const Json* workloads = member(v, "workloads");
  if (!workloads) throw SpecError("workloads: missing (a list of {\"op\": ..., \"shape\": [...]})");
  if (!workloads->is_array()) throw SpecError("workloads: expected a list, got " + std::string(json_kind(*workloads)));
  for (size_t i = 0; i < workloads->size(); ++i) {
    const std::string where = "workloads[" + std::to_string(i) + "]";
    const Json& w = (*workloads)[i];
    check_fields(w, where, {"op", "shape", "dtype", "calls", "group"});
    v1::Workload* out = spec.add_workloads();
    const Json* op = member(w, "op");
    if (!op) throw SpecError(where + ".op: missing");
    out->set_op(get_string(*op, where + ".op"));
    const Json* shape = member(w, "shape");
    if (!shape) throw SpecError(where + ".shape: missing");
    if (shape->is_array() || !read_shape) {
      if (!shape->is_array())
        throw SpecError(where + ".shape: expected a list of extents, got " + std::string(json_kind(*shape)));
      for (size_t d = 0; d < shape->size(); ++d) {
        out->add_shape(get_int((*shape)[d], where + ".shape[" + std::to_string(d) + "]"));
      }
    } else {
      try {
        for (int64_t d : read_shape(out->op(), *shape, where + ".shape")) out->add_shape(d);
      } catch (const std::exception& e) {
        throw SpecError(e.what());
      }
    }
    if (const auto* dt = member(w, "dtype")) out->set_dtype(get_string(*dt, where + ".dtype"));
    if (const auto* c = member(w, "calls")) {
      while (spec.calls_size() < static_cast<int>(i)) spec.add_calls(1);
      spec.add_calls(get_int(*c, where + ".calls"));
    }
    if (const auto* g = member(w, "group")) {
      while (spec.groups_size() < static_cast<int>(i)) spec.add_groups(0);
      const int64_t group = get_int(*g, where + ".group");
      if (group < 0 || group > std::numeric_limits<int32_t>::max())
        throw SpecError(where + ".group: must be 0 (none) or a group number, got " + std::to_string(group));
      spec.add_groups(static_cast<int32_t>(group));
    }
  }
  if (spec.calls_size() > 0) {
    while (spec.calls_size() < spec.workloads_size()) spec.add_calls(1);
  }
  if (spec.groups_size() > 0) {
    while (spec.groups_size() < spec.workloads_size()) spec.add_groups(0);
  }
  if (const auto* f = member(v, "scheduler")) spec.set_scheduler(get_string(*f, "scheduler"));
  if (const auto* f = member(v, "model")) spec.set_model(get_string(*f, "model"));
  if (const auto* f = member(v, "input_shapes")) spec.set_input_shapes(get_string(*f, "input_shapes"));
  if (const auto* f = member(v, "time_limit_s")) spec.set_time_limit_s(get_number(*f, "time_limit_s"));
  const Json* key = member(v, "key");
  if (!key) key = member(v, "device_key");
  if (key) spec.set_device_key(get_string(*key, "key"));
  if (const auto* f = member(v, "trials")) spec.set_trials(get_int(*f, "trials"));
  if (const auto* f = member(v, "tuner")) spec.set_tuner(get_string(*f, "tuner"));
  if (const auto* f = member(v, "priority")) spec.set_priority(get_int32(*f, "priority"));
  if (const auto* f = member(v, "seed")) {
    const int64_t seed = get_int(*f, "seed");
    if (seed < 0) throw SpecError("seed: must not be negative");
    spec.set_seed(static_cast<uint64_t>(seed));
  }
  if (const auto* f = member(v, "batch")) spec.set_batch(get_int32(*f, "batch"));
  if (const auto* f = member(v, "measure")) *spec.mutable_measure() = measure_from_json(*f, "measure");
  return spec;
}

v1::JobSpec job_spec_from_text(const std::string& text, const ShapeReader& read_shape) {
  Json v;
  try {
    v = parse_json(text, kJobSpecJsonLimits);
  } catch (const JsonLimitError& e) {
    throw SpecError(std::string("job spec: ") + e.what());
  } catch (const JsonError& e) {
    throw SpecError(std::string("job file is not JSON: ") + e.what());
  }
  return job_spec_from_json(v, read_shape);
}

Json workload_to_json(const v1::Workload& w) {
  return {{"op", w.op()},
          {"shape", std::vector<int64_t>(w.shape().begin(), w.shape().end())},
          {"dtype", w.dtype().empty() ? "float32" : w.dtype()}};
}

Json job_spec_to_json(const v1::JobSpec& spec) {
  Json o = Json::object();
  o["workloads"] = Json::array();
  for (int i = 0; i < spec.workloads_size(); ++i) {
    Json w = workload_to_json(spec.workloads(i));
    if (i < spec.calls_size()) w["calls"] = spec.calls(i);
    if (i < spec.groups_size() && spec.groups(i) > 0) w["group"] = spec.groups(i);
    o["workloads"].push_back(w);
  }
  if (!spec.scheduler().empty()) o["scheduler"] = spec.scheduler();
  if (!spec.model().empty()) o["model"] = spec.model();
  if (!spec.input_shapes().empty()) o["input_shapes"] = spec.input_shapes();
  if (spec.time_limit_s() > 0) o["time_limit_s"] = spec.time_limit_s();
  o["key"] = spec.device_key();
  o["trials"] = spec.trials();
  o["tuner"] = spec.tuner();
  o["priority"] = spec.priority();
  o["seed"] = static_cast<int64_t>(spec.seed());
  o["batch"] = spec.batch();
  const auto& m = spec.measure();
  o["measure"] = {
      {"repeat", m.repeat()},           {"number", m.number()},           {"min_repeat_ms", m.min_repeat_ms()},
      {"flush_cache", m.flush_cache()}, {"cooldown_ms", m.cooldown_ms()}, {"timeout_s", m.timeout_s()}};
  if (m.cold_inputs() != v1::COLD_INPUTS_UNSPECIFIED)
    o["measure"]["cold_inputs"] = runtime::cold_inputs_name(from_wire(m.cold_inputs()));
  return o;
}

const char* job_state_name(v1::JobState s) {
  switch (s) {
    case v1::QUEUED: return "queued";
    case v1::RUNNING: return "running";
    case v1::DONE: return "done";
    case v1::FAILED: return "failed";
    case v1::CANCELLED: return "cancelled";
    default: return "unknown";
  }
}

std::optional<v1::JobState> parse_job_state(const std::string& s) {
  for (v1::JobState st : {v1::QUEUED, v1::RUNNING, v1::DONE, v1::FAILED, v1::CANCELLED}) {
    if (s == job_state_name(st)) return st;
  }
  return std::nullopt;
}

Json workload_progress_to_json(const v1::WorkloadProgress& p) {
  Json w = Json::object();
  w["workload_key"] = p.workload_key();
  w["state"] = p.state();
  w["trials"] = p.trials();
  w["trials_done"] = p.trials_done();
  w["ok"] = p.ok();
  w["failed"] = p.failed();
  w["best_gflops"] = p.best_gflops();
  if (!p.best_config_json().empty()) {
    try {
      w["best_config"] = parse_json(p.best_config_json());
    } catch (const JsonError&) {
      w["best_config"] = p.best_config_json();
    }
  }
  return w;
}

Json job_to_json(const v1::Job& job) {
  Json o = Json::object();
  o["id"] = job.id();
  o["state"] = job_state_name(job.state());
  o["owner"] = job.owner();
  if (!job.message().empty()) o["message"] = job.message();
  o["workloads"] = Json::array();
  for (const auto& p : job.workloads()) {
    Json w = workload_to_json(p.workload());
    w.update(workload_progress_to_json(p));
    o["workloads"].push_back(std::move(w));
  }
  o["spec"] = job_spec_to_json(job.spec());
  o["created_ms"] = job.created_ms();
  o["updated_ms"] = job.updated_ms();
  o["elapsed_s"] = job.elapsed_s();
  o["eta_s"] = job.eta_s();
  if (!job.spec().scheduler().empty()) {  // a scheduled job
    o["estimated_ms"] = job.estimated_ms();
    o["time_limit_reached"] = job.time_limit_reached();
  }
  return o;
}

Json device_to_json(const v1::Device& d) {
  return {{"key", d.device_key()},
          {"board_id", d.board_id()},
          {"hostname", d.hostname()},
          {"state", d.state()},
          {"target", d.target()},
          {"cpu", d.cpu_name()},
          {"cores", d.cores()},
          {"threads", d.threads()},
          {"memory_bytes", d.memory_bytes()},
          {"runtime_version", d.runtime_version()},
          {"timing_isolation", d.timing_isolation()},
          {"emulated", d.emulated()},
          {"sandboxed", d.sandboxed()},
          {"peak_gflops", d.peak_gflops()},
          {"peer", d.peer()},
          {"connected_ms", d.connected_ms()},
          {"last_heartbeat_ms", d.last_heartbeat_ms()},
          {"items_done", d.items_done()},
          {"items_failed", d.items_failed()},
          {"utilization_1h", d.utilization_1h()},
          {"in_flight", d.in_flight()}};
}

}  // namespace tf::fleet

#include "proto/json_convert.h"

#include <set>

namespace tf::fleet {
namespace {

void check_fields(const json::Value& v, const std::string& where, const std::set<std::string>& known) {
  if (!v.is_object()) throw SpecError(where + ": expected an object, got " + json::kind_name(v.kind()));
  for (const auto& [key, value] : v.members()) {
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw SpecError((where.empty() ? "" : where + ".") + key + ": unknown field (known: " + list + ")");
    }
  }
}

std::string path(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

int64_t get_int(const json::Value& v, const std::string& where) {
  if (!v.is_int()) throw SpecError(where + ": expected an integer, got " + (v.is_number() ? "a fraction" : json::kind_name(v.kind())));
  return v.as_int();
}

double get_number(const json::Value& v, const std::string& where) {
  if (!v.is_number()) throw SpecError(where + ": expected a number, got " + json::kind_name(v.kind()));
  return v.as_double();
}

std::string get_string(const json::Value& v, const std::string& where) {
  if (!v.is_string()) throw SpecError(where + ": expected a string, got " + json::kind_name(v.kind()));
  return v.as_string();
}

bool get_bool(const json::Value& v, const std::string& where) {
  if (!v.is_bool()) throw SpecError(where + ": expected true or false, got " + json::kind_name(v.kind()));
  return v.as_bool();
}

int32_t get_int32(const json::Value& v, const std::string& where) {
  const int64_t i = get_int(v, where);
  if (i < INT32_MIN || i > INT32_MAX) throw SpecError(where + ": " + std::to_string(i) + " is out of range");
  return static_cast<int32_t>(i);
}

v1::MeasureOptions measure_from_json(const json::Value& v, const std::string& where) {
  check_fields(v, where, {"repeat", "number", "min_repeat_ms", "flush_cache", "cooldown_ms", "timeout_s"});
  v1::MeasureOptions m;
  if (const auto* f = v.find("repeat")) m.set_repeat(get_int32(*f, path(where, "repeat")));
  if (const auto* f = v.find("number")) m.set_number(get_int32(*f, path(where, "number")));
  if (const auto* f = v.find("min_repeat_ms")) m.set_min_repeat_ms(get_number(*f, path(where, "min_repeat_ms")));
  if (const auto* f = v.find("flush_cache")) m.set_flush_cache(get_bool(*f, path(where, "flush_cache")));
  if (const auto* f = v.find("cooldown_ms")) m.set_cooldown_ms(get_number(*f, path(where, "cooldown_ms")));
  if (const auto* f = v.find("timeout_s")) m.set_timeout_s(get_number(*f, path(where, "timeout_s")));
  return m;
}

}  // namespace

v1::JobSpec job_spec_from_json(const json::Value& v) {
  check_fields(v, "job", {"workloads", "key", "device_key", "trials", "tuner", "priority", "seed", "batch", "measure"});
  v1::JobSpec spec;
  const json::Value* workloads = v.find("workloads");
  if (!workloads) throw SpecError("workloads: missing (a list of {\"op\": ..., \"shape\": [...]})");
  if (!workloads->is_array()) throw SpecError("workloads: expected a list, got " + std::string(json::kind_name(workloads->kind())));
  for (size_t i = 0; i < workloads->size(); ++i) {
    const std::string where = "workloads[" + std::to_string(i) + "]";
    const json::Value& w = workloads->items()[i];
    check_fields(w, where, {"op", "shape", "dtype"});
    v1::Workload* out = spec.add_workloads();
    const json::Value* op = w.find("op");
    if (!op) throw SpecError(where + ".op: missing");
    out->set_op(get_string(*op, where + ".op"));
    const json::Value* shape = w.find("shape");
    if (!shape) throw SpecError(where + ".shape: missing");
    if (!shape->is_array()) throw SpecError(where + ".shape: expected a list of extents");
    for (size_t d = 0; d < shape->size(); ++d) {
      out->add_shape(get_int(shape->items()[d], where + ".shape[" + std::to_string(d) + "]"));
    }
    if (const auto* dt = w.find("dtype")) out->set_dtype(get_string(*dt, where + ".dtype"));
  }
  const json::Value* key = v.find("key");
  if (!key) key = v.find("device_key");
  if (key) spec.set_device_key(get_string(*key, "key"));
  if (const auto* f = v.find("trials")) spec.set_trials(get_int(*f, "trials"));
  if (const auto* f = v.find("tuner")) spec.set_tuner(get_string(*f, "tuner"));
  if (const auto* f = v.find("priority")) spec.set_priority(get_int32(*f, "priority"));
  if (const auto* f = v.find("seed")) {
    const int64_t seed = get_int(*f, "seed");
    if (seed < 0) throw SpecError("seed: must not be negative");
    spec.set_seed(static_cast<uint64_t>(seed));
  }
  if (const auto* f = v.find("batch")) spec.set_batch(get_int32(*f, "batch"));
  if (const auto* f = v.find("measure")) *spec.mutable_measure() = measure_from_json(*f, "measure");
  return spec;
}

v1::JobSpec job_spec_from_text(const std::string& text) {
  json::Value v;
  try {
    v = json::parse(text);
  } catch (const json::ParseError& e) {
    throw SpecError(std::string("job file is not JSON: ") + e.what());
  }
  return job_spec_from_json(v);
}

json::Value workload_to_json(const v1::Workload& w) {
  json::Value o = json::Value::object();
  o.set("op", w.op());
  json::Value shape = json::Value::array();
  for (int64_t d : w.shape()) shape.push(d);
  o.set("shape", shape);
  o.set("dtype", w.dtype().empty() ? "float32" : w.dtype());
  return o;
}

json::Value job_spec_to_json(const v1::JobSpec& spec) {
  json::Value o = json::Value::object();
  json::Value workloads = json::Value::array();
  for (const auto& w : spec.workloads()) workloads.push(workload_to_json(w));
  o.set("workloads", workloads);
  o.set("key", spec.device_key());
  o.set("trials", spec.trials());
  o.set("tuner", spec.tuner());
  o.set("priority", spec.priority());
  o.set("seed", static_cast<int64_t>(spec.seed()));
  o.set("batch", spec.batch());
  const auto& m = spec.measure();
  json::Value measure = json::Value::object();
  measure.set("repeat", m.repeat());
  measure.set("number", m.number());
  measure.set("min_repeat_ms", m.min_repeat_ms());
  measure.set("flush_cache", m.flush_cache());
  measure.set("cooldown_ms", m.cooldown_ms());
  measure.set("timeout_s", m.timeout_s());
  o.set("measure", measure);
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

json::Value workload_progress_to_json(const v1::WorkloadProgress& p) {
  json::Value w = json::Value::object();
  w.set("workload_key", p.workload_key());
  w.set("state", p.state());
  w.set("trials", p.trials());
  w.set("trials_done", p.trials_done());
  w.set("ok", p.ok());
  w.set("failed", p.failed());
  w.set("best_gflops", p.best_gflops());
  if (!p.best_config_json().empty()) {
    try {
      w.set("best_config", json::parse(p.best_config_json()));
    } catch (const json::ParseError&) {
      w.set("best_config", p.best_config_json());
    }
  }
  return w;
}

json::Value job_to_json(const v1::Job& job) {
  json::Value o = json::Value::object();
  o.set("id", job.id());
  o.set("state", job_state_name(job.state()));
  o.set("owner", job.owner());
  if (!job.message().empty()) o.set("message", job.message());
  json::Value workloads = json::Value::array();
  for (const auto& p : job.workloads()) {
    json::Value w = workload_to_json(p.workload());
    const json::Value progress = workload_progress_to_json(p);  // outlives the loop over its members
    for (const auto& [k, v] : progress.members()) w.set(k, v);
    workloads.push(w);
  }
  o.set("workloads", workloads);
  o.set("spec", job_spec_to_json(job.spec()));
  o.set("created_ms", job.created_ms());
  o.set("updated_ms", job.updated_ms());
  o.set("elapsed_s", job.elapsed_s());
  o.set("eta_s", job.eta_s());
  return o;
}

json::Value device_to_json(const v1::Device& d) {
  json::Value o = json::Value::object();
  o.set("key", d.device_key());
  o.set("board_id", d.board_id());
  o.set("hostname", d.hostname());
  o.set("state", d.state());
  o.set("target", d.target());
  o.set("cpu", d.cpu_name());
  o.set("cores", d.cores());
  o.set("threads", d.threads());
  o.set("memory_bytes", d.memory_bytes());
  o.set("runtime_version", d.runtime_version());
  o.set("timing_isolation", d.timing_isolation());
  o.set("peer", d.peer());
  o.set("connected_ms", d.connected_ms());
  o.set("last_heartbeat_ms", d.last_heartbeat_ms());
  o.set("items_done", d.items_done());
  o.set("in_flight", d.in_flight());
  return o;
}

}  // namespace tf::fleet

// A measurement as plain data: its outcome names, mean, workload key and the export record
// (`tunefarm export`/`import`, the seed records) it reads from and writes to.
#include <cmath>
#include <string>

#include "db/database.h"
#include "support/workload_key.h"

namespace tf::db {
namespace {

const char* kOutcomes[] = {"ok", "compile_error", "runtime_error", "timeout", "wrong_answer"};

// An export record's fields; errors name the field by its path ("field \"workload.op\": expected a string").
namespace record_field {
const Json& get(const Json& obj, const std::string& where, const char* name) {
  if (!obj.is_object() || !obj.contains(name)) throw JsonError("missing field \"" + where + name + "\"");
  return obj[name];
}

const Json& checked(const Json& v, bool ok, const char* want, const std::string& where, const char* name) {
  if (!ok) throw JsonError("field \"" + where + name + "\": expected " + want + ", got " + json_kind(v));
  return v;
}

const Json& object(const Json& obj, const std::string& where, const char* name) {
  const Json& v = get(obj, where, name);
  return checked(v, v.is_object(), "an object", where, name);
}

const Json& array(const Json& obj, const std::string& where, const char* name) {
  const Json& v = get(obj, where, name);
  return checked(v, v.is_array(), "an array", where, name);
}

std::string string(const Json& obj, const std::string& where, const char* name) {
  const Json& v = get(obj, where, name);
  return checked(v, v.is_string(), "a string", where, name).get<std::string>();
}

int64_t integer(const Json& obj, const std::string& where, const char* name) {
  const Json& v = get(obj, where, name);
  return checked(v, v.is_number_integer(), "an integer", where, name).get<int64_t>();
}

double number(const Json& obj, const std::string& where, const char* name) {
  const Json& v = get(obj, where, name);
  return checked(v, v.is_number(), "a number", where, name).get<double>();
}
}  // namespace record_field
}  // namespace

const char* outcome_name(Outcome o) { return kOutcomes[static_cast<int>(o)]; }

bool parse_outcome(const std::string& s, Outcome* out) {
  for (int i = 0; i < 5; ++i) {
    if (s == kOutcomes[i]) {
      *out = static_cast<Outcome>(i);
      return true;
    }
  }
  return false;
}

double Measurement::mean_s() const {
  if (costs.empty()) return NAN;
  double sum = 0;
  for (double c : costs) sum += c;
  return sum / static_cast<double>(costs.size());
}

std::string Measurement::workload_key() const { return tf::workload_key(op, shape, dtype); }

Json Measurement::to_json() const {
  Json r = Json::object();
  r["workload"] = {{"op", op}, {"shape", shape}, {"dtype", dtype}};
  r["target"] = {{"target", target}, {"device_key", device_key}};
  r["config"] = config;
  r["config_index"] = config_index;
  r["costs"] = costs;
  r["timing"] = runtime::timing_name(timing);
  r["outcome"] = outcome_name(outcome);
  r["error"] = error;
  r["build_ms"] = build_ms;
  r["device"] = device;
  r["compiler_version"] = compiler_version;
  r["time"] = created_ms;
  return r;
}

Measurement Measurement::from_json(const Json& r) {
  Measurement m;
  const Json& w = record_field::object(r, "", "workload");
  m.op = record_field::string(w, "workload.", "op");
  for (const auto& d : record_field::array(w, "workload.", "shape")) {
    if (!d.is_number_integer())
      throw JsonError(std::string("field \"workload.shape\": expected integers, got ") + json_kind(d));
    m.shape.push_back(d.get<int64_t>());
  }
  if (w.contains("dtype")) m.dtype = record_field::string(w, "workload.", "dtype");
  const Json& t = record_field::object(r, "", "target");
  m.target = record_field::string(t, "target.", "target");
  if (t.contains("device_key")) m.device_key = record_field::string(t, "target.", "device_key");
  m.config = record_field::get(r, "", "config");
  if (!m.config.is_object()) throw JsonError("field \"config\" must be an object");
  if (r.contains("config_index")) m.config_index = record_field::integer(r, "", "config_index");
  for (const auto& c : record_field::array(r, "", "costs")) {
    if (!c.is_number()) throw JsonError(std::string("field \"costs\": expected numbers, got ") + json_kind(c));
    m.costs.push_back(c.get<double>());
  }
  if (!parse_outcome(record_field::string(r, "", "outcome"), &m.outcome)) {
    throw JsonError("field \"outcome\" is not one of ok, compile_error, runtime_error, timeout, wrong_answer");
  }
  // Records exported before timings were stored were all timed warm.
  if (r.contains("timing")) {
    const std::string timing = record_field::string(r, "", "timing");
    if (!runtime::parse_timing(timing, &m.timing)) {
      // Quoted as JSON: the value came from a file and may hold control characters.
      throw JsonError("field \"timing\" is " + Json(timing).dump(-1, ' ', true, Json::error_handler_t::replace) +
                      ", not one of warm, cold-weights, cold-all");
    }
  }
  if (r.contains("error")) m.error = record_field::string(r, "", "error");
  if (r.contains("build_ms")) m.build_ms = record_field::number(r, "", "build_ms");
  if (r.contains("device")) m.device = record_field::string(r, "", "device");
  if (r.contains("compiler_version")) m.compiler_version = record_field::string(r, "", "compiler_version");
  m.created_ms = record_field::integer(r, "", "time");
  return m;
}

}  // namespace tf::db

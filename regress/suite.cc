#include "regress/suite.h"

#include <fstream>
#include <set>
#include <sstream>

#include "compiler/error.h"
#include "compiler/ops/shape_json.h"
#include "support/files.h"
#include "support/json.h"

namespace tf::regress {
namespace {

constexpr double kDefaultThreshold = 0.05;

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw SuiteError(path + ": " + what); }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// A suite field of the expected kind; otherwise a SuiteError naming the field and what it is instead.
const Json& of_kind(const Json& v, bool ok, const char* want, const std::string& path, const std::string& field) {
  if (!ok) fail(path, field + ": expected " + want + ", got " + json_kind(v));
  return v;
}

std::string get_string(const Json& v, const std::string& path, const std::string& field) {
  return of_kind(v, v.is_string(), "a string", path, field).get<std::string>();
}

int64_t get_int(const Json& v, const std::string& path, const std::string& field) {
  return of_kind(v, v.is_number_integer(), "an integer", path, field).get<int64_t>();
}

double get_number(const Json& v, const std::string& path, const std::string& field) {
  return of_kind(v, v.is_number(), "a number", path, field).get<double>();
}

}  // namespace

void check_threshold(double t, const std::string& what) {
  if (!(t > 0 && t < 1)) {
    std::ostringstream os;
    os << what << ": " << t << " is out of range (a fraction between 0 and 1 exclusive, e.g. 0.05 or 5%)";
    throw SuiteError(os.str());
  }
}

double parse_threshold(const std::string& text, const std::string& what) {
  std::string s = text;
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.pop_back();
  double v = 0;
  size_t used = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (s.empty() || used != s.size()) throw SuiteError(what + ": '" + text + "' is not a number (e.g. 0.05 or 5%)");
  if (percent) v /= 100;
  check_threshold(v, what);
  return v;
}

double Suite::threshold_for(const SuiteWorkload& w, std::optional<double> command_line) const {
  if (command_line) return *command_line;
  if (w.threshold) return *w.threshold;
  if (threshold) return *threshold;
  return kDefaultThreshold;
}

Suite parse_suite(const std::string& text, const std::string& path) {
  Json v;
  try {
    v = parse_json(text, kSuiteJsonLimits);
  } catch (const JsonLimitError& e) {
    fail(path, e.what());
  } catch (const JsonError& e) {
    fail(path, std::string("not valid JSON: ") + e.what());
  }
  if (!v.is_object()) fail(path, "a suite is a JSON object with a \"workloads\" list");
  Suite s;
  s.path = path;
  static const std::set<std::string> known = {"about", "key", "target", "threads", "threshold", "rounds", "workloads"};
  for (const auto& [k, value] : v.items()) {
    if (!known.count(k))
      fail(path, "unknown field \"" + k + "\" (known: about, key, target, threads, threshold, rounds, workloads)");
  }
  if (v.contains("key")) s.key = get_string(v["key"], path, "key");
  if (v.contains("target")) s.target = get_string(v["target"], path, "target");
  if (v.contains("threads")) {
    const int64_t threads = get_int(v["threads"], path, "threads");
    if (threads < 1 || threads > 1024) fail(path, "threads: " + std::to_string(threads) + " (1..1024)");
    s.threads = static_cast<int>(threads);
  }
  if (v.contains("rounds")) {
    const int64_t rounds = get_int(v["rounds"], path, "rounds");
    // Fewer than 6 paired rounds cannot give a 95% interval for the median ratio.
    if (rounds < 6 || rounds > 1000) fail(path, "rounds: " + std::to_string(rounds) + " (6..1000)");
    s.rounds = static_cast<int>(rounds);
  }
  if (v.contains("threshold")) {
    s.threshold = get_number(v["threshold"], path, "threshold");
    check_threshold(*s.threshold, path + ": threshold");
  }
  const auto list = v.find("workloads");
  if (list == v.end() || !list->is_array() || list->empty()) fail(path, "\"workloads\" must be a non-empty list");
  std::set<std::string> names;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& w = (*list)[i];
    const std::string at = "workloads[" + std::to_string(i) + "]";
    if (!w.is_object()) fail(path, at + ": must be an object with op and shape");
    SuiteWorkload sw;
    for (const auto& [k, value] : w.items()) {
      if (k != "name" && k != "op" && k != "shape" && k != "threshold") {
        fail(path, at + ": unknown field \"" + k + "\" (known: name, op, shape, threshold)");
      }
    }
    if (!w.contains("op")) fail(path, at + ": missing \"op\"");
    if (!w.contains("shape"))
      fail(path, at + ": missing \"shape\" (a list of extents, \"n=1,c=64,...\" or {\"n\": 1, ...})");
    sw.workload.op = get_string(w["op"], path, at + ".op");
    const auto ops = ops::operator_names();
    if (std::find(ops.begin(), ops.end(), sw.workload.op) == ops.end()) {
      fail(path, at + ": unknown workload: no operator \"" + sw.workload.op + "\" (known: " + join(ops) + ")");
    }
    try {
      sw.workload.shape = ops::shape_from_json(sw.workload.op, w["shape"], at + ".shape");
    } catch (const CompileError& e) {
      fail(path, e.what());
    }
    try {
      ops::check_workload(sw.workload);
    } catch (const std::exception& e) {
      fail(path, at + ": unknown workload " + sw.workload.str() + ": " + e.what());
    }
    sw.name = w.contains("name") ? get_string(w["name"], path, at + ".name") : sw.workload.str();
    if (sw.name.empty()) fail(path, at + ": empty \"name\"");
    if (!names.insert(sw.name).second) fail(path, at + ": the name \"" + sw.name + "\" is used twice");
    if (w.contains("threshold")) {
      sw.threshold = get_number(w["threshold"], path, at + ".threshold");
      check_threshold(*sw.threshold, path + ": " + at + ".threshold");
    }
    s.workloads.push_back(std::move(sw));
  }
  return s;
}

Suite load_suite(const std::string& path) {
  const std::optional<std::string> text = try_read_file(path);
  if (!text) throw SuiteError(path + ": cannot read the suite file");
  return parse_suite(*text, path);
}

}  // namespace tf::regress

#include "regress/suite.h"

#include <fstream>
#include <set>
#include <sstream>

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
  json::Value v;
  try {
    v = json::parse(text);
  } catch (const json::ParseError& e) {
    fail(path, std::string("not valid JSON: ") + e.what());
  }
  if (!v.is_object()) fail(path, "a suite is a JSON object with a \"workloads\" list");
  Suite s;
  s.path = path;
  static const std::set<std::string> known = {"about", "key", "target", "threads", "threshold", "rounds", "workloads"};
  for (const auto& [k, value] : v.members()) {
    if (!known.count(k)) fail(path, "unknown field \"" + k + "\" (known: about, key, target, threads, threshold, rounds, workloads)");
  }
  try {
    if (const auto* k = v.find("key")) s.key = k->as_string();
    if (const auto* t = v.find("target")) s.target = t->as_string();
    if (const auto* t = v.find("threads")) {
      s.threads = static_cast<int>(t->as_int());
      if (s.threads < 1 || s.threads > 1024) fail(path, "threads: " + std::to_string(s.threads) + " (1..1024)");
    }
    if (const auto* r = v.find("rounds")) {
      s.rounds = static_cast<int>(r->as_int());
      // Fewer than 6 paired rounds cannot give a 95% interval for the median ratio.
      if (s.rounds < 6 || s.rounds > 1000) fail(path, "rounds: " + std::to_string(s.rounds) + " (6..1000)");
    }
    if (const auto* t = v.find("threshold")) {
      s.threshold = t->as_double();
      check_threshold(*s.threshold, path + ": threshold");
    }
  } catch (const json::ParseError& e) {
    fail(path, e.what());
  }
  const json::Value* list = v.find("workloads");
  if (!list || !list->is_array() || list->items().empty()) fail(path, "\"workloads\" must be a non-empty list");
  std::set<std::string> names;
  for (size_t i = 0; i < list->items().size(); ++i) {
    const json::Value& w = list->items()[i];
    const std::string at = "workloads[" + std::to_string(i) + "]";
    if (!w.is_object()) fail(path, at + ": must be an object with op and shape");
    SuiteWorkload sw;
    try {
      for (const auto& [k, value] : w.members()) {
        if (k != "name" && k != "op" && k != "shape" && k != "threshold") {
          fail(path, at + ": unknown field \"" + k + "\" (known: name, op, shape, threshold)");
        }
      }
      const json::Value* op = w.find("op");
      const json::Value* shape = w.find("shape");
      if (!op) fail(path, at + ": missing \"op\"");
      if (!shape || !shape->is_array()) fail(path, at + ": missing \"shape\" (a list of extents)");
      sw.workload.op = op->as_string();
      for (const auto& d : shape->items()) sw.workload.shape.push_back(d.as_int());
      const auto ops = ops::operator_names();
      if (std::find(ops.begin(), ops.end(), sw.workload.op) == ops.end()) {
        fail(path, at + ": unknown workload: no operator \"" + sw.workload.op + "\" (known: " + join(ops) + ")");
      }
      try {
        ops::check_workload(sw.workload);
      } catch (const std::exception& e) {
        fail(path, at + ": unknown workload " + sw.workload.str() + ": " + e.what());
      }
      sw.name = w.find("name") ? w.at("name").as_string() : sw.workload.str();
      if (sw.name.empty()) fail(path, at + ": empty \"name\"");
      if (!names.insert(sw.name).second) fail(path, at + ": the name \"" + sw.name + "\" is used twice");
      if (const auto* t = w.find("threshold")) {
        sw.threshold = t->as_double();
        check_threshold(*sw.threshold, path + ": " + at + ".threshold");
      }
    } catch (const json::ParseError& e) {
      fail(path, at + ": " + e.what());
    }
    s.workloads.push_back(std::move(sw));
  }
  return s;
}

Suite load_suite(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw SuiteError(path + ": cannot read the suite file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_suite(ss.str(), path);
}

}  // namespace tf::regress

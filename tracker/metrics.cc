#include "tracker/metrics.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace tf::tracker {
namespace {

// A label value as the exposition format wants it: backslash, double quote and newline escaped.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void header(std::ostringstream& out, const char* name, const char* type, const char* help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

}  // namespace

const std::vector<double>& Metrics::latency_buckets() {
  static const std::vector<double> bounds = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return bounds;
}

void Metrics::dispatched(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  ++dispatched_[key];
}

void Metrics::answered(const std::string& key, const std::string& outcome, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++answers_[{key, outcome}];
  if (!(seconds >= 0) || !std::isfinite(seconds)) return;
  Histogram& h = latency_[key];
  const auto& bounds = latency_buckets();
  if (h.counts.empty()) h.counts.assign(bounds.size() + 1, 0);
  size_t b = 0;
  while (b < bounds.size() && seconds > bounds[b]) ++b;
  ++h.counts[b];
  h.sum += seconds;
  ++h.count;
}

namespace {

void builder_gauges(std::ostringstream& out, const Metrics::Gauges& g) {
  header(out, "tunefarm_builders", "gauge", "Builders connected, by state (idle, busy, draining).");
  std::map<std::string, int64_t> by_state{{"idle", 0}, {"busy", 0}, {"draining", 0}};
  for (const auto& b : g.builders) ++by_state[b.state];
  for (const auto& [state, n] : by_state) out << "tunefarm_builders{state=\"" << label(state) << "\"} " << n << "\n";
  header(out, "tunefarm_builder_in_flight", "gauge", "Builds a builder holds, by builder.");
  for (const auto& b : g.builders)
    out << "tunefarm_builder_in_flight{builder=\"" << label(b.id) << "\"} " << b.in_flight << "\n";
  header(out, "tunefarm_builder_builds_per_second", "gauge",
         "Builds a builder answered per second over its last minute.");
  for (const auto& b : g.builders)
    out << "tunefarm_builder_builds_per_second{builder=\"" << label(b.id) << "\"} " << number(b.builds_per_s) << "\n";
  header(out, "tunefarm_builder_builds_total", "counter",
         "Builds a builder answered since it connected, by outcome (ok, compile_error, bad: an answer refused).");
  for (const auto& b : g.builders) {
    const std::pair<const char*, int64_t> outcomes[] = {
        {"ok", b.done}, {"compile_error", b.failed}, {"bad", b.bad_answers}};
    for (const auto& [outcome, n] : outcomes)
      out << "tunefarm_builder_builds_total{builder=\"" << label(b.id) << "\",outcome=\"" << outcome << "\"} " << n
          << "\n";
  }
  header(out, "tunefarm_builds_total", "counter",
         "Candidate builds started, by where: remote (a builder), here (the tracker's threads), cached.");
  for (const auto& [where, n] : g.builds)
    out << "tunefarm_builds_total{where=\"" << label(where) << "\"} " << n << "\n";
  header(out, "tunefarm_builds_reassigned_total", "counter",
         "Builds sent to another builder (or built here) after theirs left, fell silent or answered wrongly.");
  out << "tunefarm_builds_reassigned_total " << g.builds_reassigned << "\n";
  header(out, "tunefarm_build_queue_depth", "gauge", "Builds waiting for a builder's free slot.");
  out << "tunefarm_build_queue_depth " << g.build_queue << "\n";
}

}  // namespace

std::string Metrics::exposition(const Gauges& g) const {
  std::ostringstream out;
  header(out, "tunefarm_boards", "gauge", "Boards connected, by device key and state (idle, busy, draining).");
  for (const auto& [ks, n] : g.boards)
    out << "tunefarm_boards{key=\"" << label(ks.first) << "\",state=\"" << label(ks.second) << "\"} " << n << "\n";
  header(out, "tunefarm_queue_depth", "gauge", "Work items waiting for a board, by device key.");
  for (const auto& [key, n] : g.queued) out << "tunefarm_queue_depth{key=\"" << label(key) << "\"} " << n << "\n";
  header(out, "tunefarm_jobs", "gauge", "Tuning jobs by state.");
  for (const auto& [state, n] : g.jobs) out << "tunefarm_jobs{state=\"" << label(state) << "\"} " << n << "\n";
  header(out, "tunefarm_db_bytes", "gauge", "Size of the tuning database with its write-ahead log, in bytes.");
  out << "tunefarm_db_bytes " << g.db_bytes << "\n";
  builder_gauges(out, g);

  std::lock_guard<std::mutex> lock(mu_);
  header(out, "tunefarm_dispatches_total", "counter", "Work items sent to boards, by device key.");
  for (const auto& [key, n] : dispatched_)
    out << "tunefarm_dispatches_total{key=\"" << label(key) << "\"} " << n << "\n";
  header(
      out, "tunefarm_results_total", "counter",
      "Work items answered, by device key and outcome (ok, compile_error, runtime_error, timeout, wrong_answer, lost).");
  for (const auto& [ko, n] : answers_) {
    out << "tunefarm_results_total{key=\"" << label(ko.first) << "\",outcome=\"" << label(ko.second) << "\"} " << n
        << "\n";
  }
  header(out, "tunefarm_measurement_seconds", "histogram",
         "From sending a work item to its board's answer, by device key.");
  const auto& bounds = latency_buckets();
  for (const auto& [key, h] : latency_) {
    int64_t cumulative = 0;
    for (size_t b = 0; b <= bounds.size(); ++b) {
      cumulative += h.counts[b];
      out << "tunefarm_measurement_seconds_bucket{key=\"" << label(key) << "\",le=\""
          << number(b < bounds.size() ? bounds[b] : INFINITY) << "\"} " << cumulative << "\n";
    }
    out << "tunefarm_measurement_seconds_sum{key=\"" << label(key) << "\"} " << number(h.sum) << "\n";
    out << "tunefarm_measurement_seconds_count{key=\"" << label(key) << "\"} " << h.count << "\n";
  }
  return out.str();
}

}  // namespace tf::tracker

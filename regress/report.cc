#include "regress/report.h"

#include <cstdio>

#include "support/xml.h"

namespace tf::regress {

std::string format_value(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

namespace {

bool compared(const WorkloadVerdict& w) {
  return w.status == "faster" || w.status == "unchanged" || w.status == "slower";
}

// "0.612x (95% CI 0.601-0.623), 5% threshold"
std::string ratio_text(const WorkloadVerdict& w) {
  return format_value("%.3fx", w.ratio.median) + format_value(" (%.0f%% CI ", w.ratio.confidence * 100) +
         format_value("%.3f", w.ratio.low) + format_value("-%.3f)", w.ratio.high) +
         format_value(", threshold %.1f%%", w.threshold * 100);
}

}  // namespace

std::string to_junit(const RegressReport& r) {
  int failures = 0, errors = 0, skipped = 0;
  for (const auto& w : r.workloads) {
    failures += w.status == "slower" || w.status == "broken";
    errors += w.status == "failed";
    skipped += w.status == "no_baseline";
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // The same counts on the <testsuites> root and its one <testsuite>: CI systems read either.
  const std::string counts = " tests=\"" + std::to_string(r.workloads.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" +
                             std::to_string(skipped) + "\" time=\"" + format_value("%.3f", r.seconds) + "\"";
  x += "<testsuites name=\"tunefarm regress\"" + counts + ">\n";
  x += "  <testsuite name=\"" + xml_escape("baseline " + r.baseline) + "\"" + counts + ">\n";
  x += "    <properties>\n";
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"suite", r.suite},
                                                                             {"device", r.device},
                                                                             {"target", r.target},
                                                                             {"timing_isolation", r.timing_isolation},
                                                                             {"rounds", std::to_string(r.rounds)}}) {
    x += "      <property name=\"" + k + "\" value=\"" + xml_escape(v) + "\"/>\n";
  }
  x += "    </properties>\n";
  for (const auto& w : r.workloads) {
    x += "    <testcase classname=\"tunefarm.regress." + xml_escape(r.baseline) + "\" name=\"" + xml_escape(w.name) +
         "\" time=\"" + format_value("%.3f", w.seconds) + "\">\n";
    if (w.status == "slower") {
      x += "      <failure type=\"slower\" message=\"" + xml_escape("slower: " + ratio_text(w)) + "\">" +
           xml_escape(w.workload_key + format_value(": baseline %.1f GFLOPS", w.baseline_gflops) +
                      format_value(", current %.1f GFLOPS", w.current_gflops) + "; baseline config " +
                      w.baseline_config.dump() + " (" + w.baseline_compiler + "), current config " +
                      w.current_config.dump() + " (" + w.current_compiler + ")") +
           "</failure>\n";
    } else if (w.status == "broken") {
      x += "      <failure type=\"broken\" message=\"" + xml_escape(w.error) + "\"/>\n";
    } else if (w.status == "failed") {
      x += "      <error type=\"failed\" message=\"" + xml_escape(w.error) + "\"/>\n";
    } else if (w.status == "no_baseline") {
      x += "      <skipped message=\"" + xml_escape(w.error) + "\"/>\n";
    } else {
      x += "      <system-out>" + xml_escape(w.status + ": " + ratio_text(w)) + "</system-out>\n";
    }
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

Json to_json(const RegressReport& r) {
  Json out = Json::object();
  out["baseline"] = r.baseline;
  out["suite"] = r.suite;
  out["where"] = r.where;
  out["device"] = r.device;
  out["target"] = r.target;
  out["timing_isolation"] = r.timing_isolation;
  out["rounds"] = r.rounds;
  out["statistic"] =
      "median of paired speed ratios (baseline time / current time per round), sign-test confidence interval";
  Json list = Json::array();
  for (const auto& w : r.workloads) {
    Json j = Json::object();
    j["name"] = w.name;
    j["workload"] = w.workload_key;
    j["status"] = w.status;
    if (!w.error.empty()) j["error"] = w.error;
    j["threshold"] = w.threshold;
    if (compared(w)) {
      j["speed_ratio"] = w.ratio.median;
      j["ci_low"] = w.ratio.low;
      j["ci_high"] = w.ratio.high;
      j["confidence"] = w.ratio.confidence;
      j["rounds"] = w.ratio.rounds;
      j["baseline_gflops"] = w.baseline_gflops;
      j["current_gflops"] = w.current_gflops;
    }
    j["baseline_config"] = w.baseline_config;
    j["current_config"] = w.current_config;
    j["config_changed"] = w.config_changed;
    j["baseline_compiler"] = w.baseline_compiler;
    j["current_compiler"] = w.current_compiler;
    j["device"] = w.device;
    j["seconds"] = w.seconds;
    list.push_back(j);
  }
  out["workloads"] = list;
  out["seconds"] = r.seconds;
  out["exit_code"] = r.exit_code();
  return out;
}

std::string to_markdown(const RegressReport& r) {
  std::string md = "### tunefarm regress: baseline `" + r.baseline + "`\n\n";
  md += "Measured on " + r.device + " (" + r.where + "), " + std::to_string(r.rounds) +
        " interleaved rounds per workload; timing isolation: " + r.timing_isolation + ".\n";
  md += "Speed ratio: current / baseline, the median of per-round ratios, with its 95% interval.\n\n";
  md += "| workload | verdict | speed ratio | 95% CI | baseline GFLOPS | current GFLOPS | threshold | config |\n";
  md += "|---|---|---|---|---|---|---|---|\n";
  for (const auto& w : r.workloads) {
    md += "| " + w.name + " | " +
          (w.status == "slower" || w.status == "broken" || w.status == "failed" ? "**" + w.status + "**" : w.status) +
          " | ";
    if (compared(w)) {
      md += format_value("%.3f", w.ratio.median) + " | " + format_value("%.3f", w.ratio.low) +
            format_value("-%.3f", w.ratio.high) + " | " + format_value("%.1f", w.baseline_gflops) + " | " +
            format_value("%.1f", w.current_gflops) + " | ";
    } else {
      md += " | | | | ";
    }
    md += format_value("%.1f%%", w.threshold * 100) + " | " + (w.config_changed ? "changed" : "same") + " |\n";
  }
  bool notes = false;
  for (const auto& w : r.workloads) {
    if (w.error.empty()) continue;
    if (!notes) md += "\n";
    notes = true;
    md += "- " + w.name + ": " + w.error + "\n";
  }
  const int code = r.exit_code();
  md += std::string("\nResult: ") +
        (code == 0   ? "nothing slower beyond its threshold"
         : code == 1 ? "SLOWER"
                     : "the run FAILED") +
        format_value(" (exit %.0f)", code) + format_value(", %.0f s.\n", r.seconds);
  return md;
}

}  // namespace tf::regress

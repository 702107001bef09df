#include "tuner/record_line.h"

#include "support/json.h"

namespace tf::tuner {

RecordLine read_record_line(const std::string& line, RecordChecker& checker) {
  RecordLine out;
  if (line.find_first_not_of(" \t\r") == std::string::npos) return out;
  try {
    out.record = db::Measurement::from_json(parse_json(line, kRecordLineJsonLimits));
  } catch (const std::exception& e) {
    out.verdict = RecordLine::Verdict::Unreadable;
    out.why = std::string("unreadable: ") + e.what();
    return out;
  }
  out.why = checker.problem(out.record);
  out.verdict = out.why.empty() ? RecordLine::Verdict::Ok : RecordLine::Verdict::Refused;
  if (!out.why.empty()) out.why = "refused: " + out.why;
  return out;
}

}  // namespace tf::tuner

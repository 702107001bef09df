#include <cmath>
#include <cstdio>
#include <string>

#include "runtime/measure.h"

namespace tf::runtime {
namespace {

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Empty when lo <= v <= hi (which a NaN never is).
std::string out_of_range(const char* field, double v, double lo, double hi, const char* unit) {
  if (v >= lo && v <= hi) return "";
  return std::string(field) + ": " + number_text(v) + " is out of range (" + number_text(lo) + " to " +
         number_text(hi) + unit + ")";
}

}  // namespace

std::string measure_options_error(const MeasureOptions& o) {
  if (o.repeat < 1 || o.repeat > kMaxRepeat) {
    return "repeat: " + std::to_string(o.repeat) + " is out of range (1 to " + std::to_string(kMaxRepeat) + ")";
  }
  if (o.number < 0)
    return "number: " + std::to_string(o.number) + " must not be negative (0: grown until min_repeat_ms)";
  if (o.number > kMaxNumber)
    return "number: " + std::to_string(o.number) + " is out of range (0 to " + std::to_string(kMaxNumber) + ")";
  if (auto e = out_of_range("min_repeat_ms", o.min_repeat_ms, 0, kMaxRepeatMs, " ms"); !e.empty()) return e;
  if (auto e = out_of_range("cooldown_ms", o.cooldown_ms, 0, kMaxRepeatMs, " ms"); !e.empty()) return e;
  if (o.cold_inputs != ColdInputs::Off && o.cold_inputs != ColdInputs::Weights && o.cold_inputs != ColdInputs::All) {
    return "cold_inputs: " + std::to_string(static_cast<int32_t>(o.cold_inputs)) +
           " is not a mode (off, weights or all)";
  }
  if (!(o.timeout_s > 0)) return "timeout_s: " + number_text(o.timeout_s) + " must be positive";
  return out_of_range("timeout_s", o.timeout_s, 0, kMaxTimeoutS, " s");
}

}  // namespace tf::runtime

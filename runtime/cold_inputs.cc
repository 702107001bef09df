#include "runtime/cold_inputs.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace tf::runtime {
namespace {

std::string mb_text(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

namespace {

// Each mode's two spellings: the --cold-inputs option's and the stored timing's.
struct ModeNames {
  ColdInputs mode;
  const char* option;
  const char* timing;
};
constexpr ModeNames kModes[] = {
    {ColdInputs::Off, "off", "warm"},
    {ColdInputs::Weights, "weights", "cold-weights"},
    {ColdInputs::All, "all", "cold-all"},
};

bool parse_name(const std::string& text, const char* ModeNames::*spelling, ColdInputs* out) {
  for (const ModeNames& m : kModes) {
    if (text == m.*spelling) {
      *out = m.mode;
      return true;
    }
  }
  return false;
}

const char* name_of(ColdInputs c, const char* ModeNames::*spelling) {
  for (const ModeNames& m : kModes) {
    if (m.mode == c) return m.*spelling;
  }
  return "unknown";
}

}  // namespace

const char* cold_inputs_name(ColdInputs c) { return name_of(c, &ModeNames::option); }
bool parse_cold_inputs(const std::string& text, ColdInputs* out) { return parse_name(text, &ModeNames::option, out); }
const char* timing_name(ColdInputs c) { return name_of(c, &ModeNames::timing); }
bool parse_timing(const std::string& text, ColdInputs* out) { return parse_name(text, &ModeNames::timing, out); }

std::vector<int> rotated_inputs(const WorkloadSetup& setup, ColdInputs mode) {
  std::vector<int> at;
  if (mode == ColdInputs::Off || setup.args.empty()) return at;
  const std::vector<int64_t>& out = setup.args.back().shape;
  for (int i = 0; i < setup.num_inputs && i < static_cast<int>(setup.args.size()) - 1; ++i) {
    if (mode == ColdInputs::Weights && (i == 0 || setup.args[static_cast<size_t>(i)].shape == out)) continue;
    at.push_back(i);
  }
  return at;
}

int cold_copies(uint64_t bytes, const LastLevelCache& llc) {
  if (bytes == 0) return 1;
  const uint64_t want = 2 * llc.bytes;
  const uint64_t k = std::clamp<uint64_t>((want + bytes - 1) / bytes, 1, kMaxColdCopies);
  if (k > 1 && k * bytes > kMaxColdBytes) {
    throw std::runtime_error("cold inputs: " + std::to_string(k) + " copies of the " + mb_text(bytes) +
                             " of rotated inputs (together at least twice the last-level cache of " +
                             mb_text(llc.bytes) + ", " + llc.source + ") would take " + mb_text(k * bytes) +
                             ", more than the " + mb_text(kMaxColdBytes) +
                             " a cold timing may use; measure warm (cold inputs off)");
  }
  return static_cast<int>(k);
}

}  // namespace tf::runtime

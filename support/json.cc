#include "support/json.h"

#include <cstdio>
#include <set>
#include <vector>

namespace tf {
namespace {

// "812 bytes", "64 KB", "80.5 MB" (KB and MB of 1024 and 1024^2 bytes).
std::string byte_size(size_t n) {
  if (n < 1024) return std::to_string(n) + " bytes";
  const bool mb = n >= (size_t{1} << 20);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(n) / (mb ? 1024.0 * 1024.0 : 1024.0));
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s + (mb ? " MB" : " KB");
}

// Refuses text beyond `limits` in one pass and without allocating. Brackets inside strings do not
// nest; text that is not JSON at all is left for the parser to describe.
void check_limits(const std::string& text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw JsonLimitError(byte_size(text.size()) + ", the limit is " + byte_size(limits.max_bytes));
  }
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits.max_depth)
        throw JsonLimitError("nesting deeper than " + std::to_string(limits.max_depth) + " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

const char* json_kind(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "binary data";
  }
}

Json parse_json(const std::string& text, const JsonLimits& limits) {
  check_limits(text, limits);
  std::vector<std::set<std::string>> open_objects;
  auto refuse_repeats = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == Json::parse_event_t::object_end) open_objects.pop_back();
    if (event == Json::parse_event_t::key && !open_objects.back().insert(parsed.get<std::string>()).second) {
      throw JsonError("invalid JSON: duplicate key " + parsed.dump());
    }
    return true;
  };
  try {
    return Json::parse(text, refuse_repeats);
  } catch (const Json::exception& e) {
    // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 5: ..." or
    // "[json.exception.out_of_range.406] number overflow parsing '1e999'".
    std::string what = e.what();
    // It quotes the text it last read, which may hold bytes that are not UTF-8; this message may
    // itself end up in JSON.
    for (char& c : what) {
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
    }
    what = what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2);
    if (what.rfind("parse error", 0) == 0) what = what.substr(11);
    throw JsonError("invalid JSON" + (what.rfind(" at line", 0) == 0 ? what : ": " + what));
  }
}

}  // namespace tf

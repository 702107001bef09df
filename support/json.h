// JSON for configs, job files, records and `--json` output: nlohmann's ordered_json, so objects keep
// insertion order and what tunefarm writes reads in a stable, meaningful order.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tf {

using Json = nlohmann::ordered_json;

// Text that is not JSON, or JSON of the wrong shape for its reader; the message says what and where.
class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "an integer", "a string", ...: for messages that say what was found instead of what was expected.
inline const char* json_kind(const Json& v) {
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

// RFC 8259 text, throwing JsonError "invalid JSON at line L, column C: ...". Also refuses a repeated
// key: in a job file `"trials"` twice is a mistake, and which one wins would be silent.
inline Json parse_json(const std::string& text) {
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

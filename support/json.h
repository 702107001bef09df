// JSON for configs, job files, records and `--json` output: nlohmann's ordered_json, so objects keep
// insertion order and what tunefarm writes reads in a stable, meaningful order.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace tf {

using Json = nlohmann::ordered_json;

// Text that is not JSON, or JSON of the wrong shape for its reader; the message says what and where.
class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Text refused before parsing for its size or its nesting: "nesting deeper than 64 levels",
// "80 MB, the limit is 1 MB". The reader prefixes what the text was ("job spec: ...").
class JsonLimitError : public JsonError {
 public:
  using JsonError::JsonError;
};

// What parse_json accepts. Both are checked by one linear scan before any value is built: parsed,
// a few MB of "[[[[..." become gigabytes of values, and nlohmann's recursive copy and dump
// overflow the stack on deep ones. No JSON tunefarm reads nests more than a handful of levels.
struct JsonLimits {
  size_t max_bytes = size_t{64} << 20;
  int max_depth = 64;
};

// The limits of each kind of JSON that comes from outside (docs/threat-model.md), each far beyond
// a real one: a job of 64 workloads is about 20 KB.
inline constexpr JsonLimits kJobSpecJsonLimits{size_t{1} << 20};         // job files, SubmitJob's spec_json
inline constexpr JsonLimits kSuiteJsonLimits{size_t{4} << 20};           // regression suite files
inline constexpr JsonLimits kRecordLineJsonLimits{size_t{1} << 20};      // a line of `tunefarm import`
inline constexpr JsonLimits kConfigJsonLimits{size_t{64} << 10};         // --config, a config's knob values
inline constexpr JsonLimits kModelManifestJsonLimits{size_t{16} << 20};  // a .tfm file's manifest

// "an integer", "a string", ...: for messages that say what was found instead of what was expected.
const char* json_kind(const Json& v);

// RFC 8259 text, throwing JsonError "invalid JSON at line L, column C: ...", or JsonLimitError for
// text beyond `limits`. Also refuses a repeated key: in a job file `"trials"` twice is a mistake,
// and which one wins would be silent.
Json parse_json(const std::string& text, const JsonLimits& limits = {});

}  // namespace tf

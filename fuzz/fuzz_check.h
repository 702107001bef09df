// What every fuzz target asks of a parser: bytes from outside either parse, or are refused with the
// exception the parser documents, carrying a message. Anything else - another exception type, an
// empty message - is reported as a finding by aborting, which libFuzzer saves as a crash input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace tf::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

// For checks that answer with a status and never throw: any exception is a finding.
struct NothingDocumented : std::exception {};

// Runs `parse`; a `Documented` exception with a message is a normal refusal.
template <typename Documented, typename Parse>
void expect_refusal_or_success(Parse&& parse) {
  try {
    parse();
  } catch (const Documented& e) {
    if (e.what() == nullptr || *e.what() == '\0')
      finding(std::string("refused without a message: ") + typeid(e).name());
  } catch (const std::exception& e) {
    finding(std::string("undocumented exception ") + typeid(e).name() + ": " + e.what());
  }
}

inline std::string as_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace tf::fuzz

// Untrusted bytes quoted in a message (a worker's stderr, a client's string, a bad header) with the
// bytes the message cannot carry written as \xNN, so that no control character reaches a terminal
// or splits a log line. Each caller says which bytes pass: the policies differ (UTF-8 text kept or
// not, line breaks kept or not), the escaping does not. Here rather than in support/ because the
// runtime links nothing but the system libraries, and every side that quotes bytes links it.
#pragma once

#include <string>

namespace tf::runtime {

// `text` with every byte `passes` refuses written as \xNN (two lower-case hex digits).
std::string escape_bytes(const std::string& text, bool (*passes)(unsigned char));

}  // namespace tf::runtime

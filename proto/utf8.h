// Text that goes into a protobuf string field must be valid UTF-8: protobuf refuses to send it
// otherwise, with a log line of its own and no status the caller could show. Callers check the
// text they were given first and say which option or field is wrong.
#pragma once

#include <string>

namespace google::protobuf {
class Message;
}

namespace tf::fleet {

// Empty when `s` is valid UTF-8 (no overlong forms, no surrogates); else why not ("byte 3 (0xff)
// starts no UTF-8 character").
std::string utf8_error(const std::string& s);

// `s` with every byte outside printable ASCII as \xNN: safe to print or put in any message, a
// terminal's included (no control character gets through). A backslash stays as it is, so text
// escaped once passes through again unchanged: a tracker's message that names a bad key, shown
// by the client.
std::string printable(const std::string& s);

// The first string field of `m` (nested messages included) that is not valid UTF-8, as a path
// ("spec.workloads[0].op") with what is wrong; empty when there is none.
std::string invalid_utf8_field(const google::protobuf::Message& m);

}  // namespace tf::fleet

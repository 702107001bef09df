// What every database failure throws, whichever backend it came from.
#pragma once

#include <stdexcept>
#include <string>

namespace tf::db {

class DbError : public std::runtime_error {
 public:
  explicit DbError(const std::string& what, int code = 0) : std::runtime_error(what), code_(code) {}
  // The SQLite result code behind the error (SQLITE_FULL, SQLITE_READONLY, ...); 0 when none, and
  // always 0 from PostgreSQL, whose errors say what they are in their text.
  int code() const { return code_; }

 private:
  int code_ = 0;
};

// How long a writer waits for another's write lock before it gives up, on either backend.
constexpr int kBusyTimeoutMs = 10000;

}  // namespace tf::db

// One line of a `tunefarm import` file, read and checked without touching a database, so the
// command and the fuzzer (fuzz/record_line_fuzz.cc) judge a line alike.
#pragma once

#include <string>

#include "db/database.h"
#include "tuner/record_check.h"

namespace tf::tuner {

struct RecordLine {
  enum class Verdict { Blank, Unreadable, Refused, Ok };
  Verdict verdict = Verdict::Blank;
  db::Measurement record;  // when Ok
  std::string why;         // when Unreadable or Refused: what is wrong, naming the field
};

RecordLine read_record_line(const std::string& line, RecordChecker& checker);

}  // namespace tf::tuner

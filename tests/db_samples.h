// What the database tests share: a measurement of dense 64x64x64 made up from a config index, and
// the message of the DbError an action throws.
#pragma once

#include <functional>
#include <string>

#include "db/database.h"
#include "db/error.h"
#include "support/json.h"

namespace tf::testing_support {

// Config {"mr": mr} (index mr) on `device`, two timings of `seconds`, created at 1000 + mr ms.
inline db::Measurement sample_measurement(int mr, double seconds = 1e-3, const std::string& device = "board-1") {
  db::Measurement m;
  m.op = "dense";
  m.shape = {64, 64, 64};
  m.target = "llvm -mtriple=x86_64-pc-linux-gnu";
  m.config = parse_json("{\"mr\": " + std::to_string(mr) + "}");
  m.config_index = mr;
  m.costs = {seconds, seconds};
  m.device = device;
  m.created_ms = 1000 + mr;
  return m;
}

// The DbError's message, or "(no DbError)" when `f` throws none.
inline std::string db_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const db::DbError& e) {
    return e.what();
  }
  return "(no DbError)";
}

}  // namespace tf::testing_support

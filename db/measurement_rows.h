// Measurement rows read back as Measurements: the one SELECT every read of the measurements table
// starts from (db/records.cc, and the migration that recomputes record hashes), and the decoding of
// a row. Internal to db/.
#pragma once

#include "db/connection.h"
#include "db/database.h"

namespace tf::db {

// "SELECT ... FROM measurements m JOIN workloads w ... JOIN targets t ...": append a WHERE or ORDER
// BY over the aliases m, w and t.
extern const char* const kSelectMeasurements;
// The column of kSelectMeasurements holding the row's id.
constexpr int kMeasurementIdColumn = 16;

// Decodes the current row of a kSelectMeasurements statement into *m. False when a stored field no
// longer parses (a row edited by hand); a successful measurement's timings are not checked here.
bool read_measurement_row(const Statement& q, Measurement* m);

}  // namespace tf::db

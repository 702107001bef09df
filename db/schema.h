// The tunefarm database schema, as an ordered list of forward migrations. A database records the
// version it is at; opening runs the migrations it lacks, each in one transaction, and refuses a
// file from a newer tunefarm rather than guess at it.
#pragma once

#include "db/connection.h"

namespace tf::db {

// The newest schema version this build knows.
int latest_schema_version();

// Brings the file to the newest version; returns the version it had (0 for a new file). Throws
// DbError when the file is not a tunefarm database or was written by a newer tunefarm.
int migrate(Connection& c);

// Checks the file without changing it: returns its version (0 for an empty file, with *empty set);
// throws DbError for another program's SQLite file, a damaged version or a newer tunefarm's file.
int check_schema(Connection& c, bool* empty);

// Applies migrations up to `version` only (tests use it to build old databases).
void migrate_to(Connection& c, int version);

}  // namespace tf::db

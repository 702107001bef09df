// A measurement record's identity in the database (measurements.record_hash, UNIQUE), so a record
// written twice - an import run again, an export of this farm read back - is stored once. Internal
// to db/.
#pragma once

#include <string>

#include "db/connection.h"
#include "db/database.h"

namespace tf::db {

// XXH3-128 (support/stable_hash.h) of everything the record says: what was measured, where, when,
// how it was timed and what came out. The same on every build and machine, because records move
// between farms.
std::string record_hash(const Measurement& m);

// Recomputes every stored record's hash with record_hash. A schema migration, run inside its
// transaction: a file stored under another hash function finds its records again afterwards.
void rehash_records(Connection& c);

}  // namespace tf::db

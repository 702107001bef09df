// Databases written before local commands took the board's form of the host's target (see
// codegen::host_target) hold this machine's local records under the string LLVM names the host by
// ("llvm -mtriple=... -mcpu=znver4 -mattr=..."). Aliasing that string to the host's target makes
// those records, cost models and best configs count as the host's again, without rewriting a row.
#pragma once

#include <memory>
#include <string>

#include "db/database.h"

namespace tf::tuner {

// Call on every database a command or the tracker opens, before its first read.
void alias_legacy_host_target(db::Database& db);

// The database at `location` (a SQLite file or a PostgreSQL URL) opened as every command and the
// Python bindings open one: with the alias above.
std::unique_ptr<db::Database> open_host_database(const std::string& location, db::Database::Open open);

}  // namespace tf::tuner
